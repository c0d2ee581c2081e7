"""How much Triton's compiler gains from threads, without a GPU: the verifier's precompile
(judge.py) hands a candidate's kernels to a thread pool, which pays only because Triton
releases the GIL for most of a compile. A program's solution is recorded in Triton's
interpreter (tests/python/hopper_compile.py), then its kernels are compiled for sm_90 at
num_warps 1, 2, 4 and 8 (distinct compiles of the same kernels), in a fresh process per thread
count with an empty Triton cache; prints the seconds per thread count.

    .venv/bin/python bench/compile_threads.py PROGRAM.py [--threads 1 2 4]
    (a program small enough for the interpreter, e.g. a SMALL version:
     python tests/programs/real/small.py tests/programs/real/models/mamba_selective_scan.py -o P.py)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import hopper_compile  # noqa: E402


def compile_all(solution, launches, threads):
    """Seconds to compile every launch at four num_warps, `threads` at a time."""
    import triton
    from concurrent.futures import ThreadPoolExecutor
    from triton.backends.compiler import GPUTarget
    module = hopper_compile.load("solution", solution)

    def one(job):
        (name, signature, constexprs), warps = job
        source = triton.compiler.ASTSource(getattr(module, name), signature, constexprs)
        triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})

    jobs = [(launch, warps) for launch in launches for warps in (1, 2, 4, 8)]
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, jobs))
    return len(jobs), time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", help="a KernelBench-format program small enough for the interpreter")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # solution, launches file, threads
    args = parser.parse_args()
    if args.child:
        solution, launches, threads = args.child
        print(json.dumps(compile_all(solution, json.load(open(launches)), int(threads))))
        return
    work = tempfile.mkdtemp(prefix="drtriton-compile-threads-")
    solution = os.path.join(work, "solution.py")
    r = subprocess.run([os.path.join(ROOT, "build", "drtriton"), "convert", args.program, "--no-verify",
                        "-o", solution], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compile_threads: convert failed: {r.stderr.strip()[-800:]}")
    r = subprocess.run([sys.executable, hopper_compile.__file__, "--record",
                        json.dumps([[os.path.abspath(args.program), solution]])],
                       capture_output=True, text=True, env={**os.environ, "TRITON_INTERPRET": "1"})
    launches = json.loads(r.stdout.splitlines()[-1])[0] if r.returncode == 0 else r.stderr[-800:]
    if isinstance(launches, str):
        sys.exit(f"compile_threads: recording the launches failed: {launches}")
    listed = os.path.join(work, "launches.json")
    json.dump(launches, open(listed, "w"))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    print("| threads | compiles | seconds |\n| --- | --- | --- |")
    for threads in args.threads:
        cache = tempfile.mkdtemp(dir=work)
        r = subprocess.run([sys.executable, __file__, args.program, "--child", solution, listed, str(threads)],
                           capture_output=True, text=True, env={**env, "TRITON_CACHE_DIR": cache})
        if r.returncode != 0:
            sys.exit(f"compile_threads: {r.stderr.strip()[-800:]}")
        jobs, seconds = json.loads(r.stdout.splitlines()[-1])
        print(f"| {threads} | {jobs} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
