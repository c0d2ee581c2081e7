"""What a codegen knob does to the machine code, without a GPU: a program is converted once per
value of one knob, each solution's forward runs once in Triton's interpreter to record its
launches (tests/python/hopper_compile.py), and each kernel is compiled for an H100/H200
(sm_90); the table gives, per kernel, its SASS instructions (Triton's nvdisasm) and the
integer divisions and remainders of its PTX (each about 20 instructions against a runtime
divisor). Fewer instructions say nothing certain about speed: the GPU's benchmarks do.

    .venv/bin/python bench/kernel_sass.py PROGRAM.py --knob sizes --values dynamic static
    (e.g. a SMALL version: python tests/programs/real/small.py tests/programs/real/fused/conv2d_bn_relu.py -o P.py)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import hopper_compile  # noqa: E402
from knob_variants import convert_variants, markdown_table  # noqa: E402 (bench/)


def sass_counts(task, solution):
    """[(kernel, SASS instructions, PTX div/rem)] of each distinct launch of one forward."""
    import triton
    from triton.backends.compiler import GPUTarget
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    r = subprocess.run([sys.executable, hopper_compile.__file__, "--record", json.dumps([[task, solution]])],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"kernel_sass: recording the launches failed: {r.stderr.strip()[-1500:]}")
    launches = json.loads(r.stdout.splitlines()[-1])[0]
    if isinstance(launches, str):
        sys.exit(f"kernel_sass: the forward failed: {launches}")
    module = hopper_compile.load(os.path.basename(solution)[:-3], solution)
    nvdisasm = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "nvdisasm")
    rows = []
    for name, signature, constexprs in launches:
        kernel = triton.compile(triton.compiler.ASTSource(getattr(module, name), signature, constexprs),
                                target=GPUTarget("cuda", 90, 32))
        with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
            cubin.write(kernel.asm["cubin"])
            cubin.flush()
            sass = subprocess.run([nvdisasm, "-c", cubin.name], capture_output=True, text=True,
                                  check=True).stdout
        instructions = sum(bool(re.match(r"\s+/\*[0-9a-f]{4}\*/", line)) for line in sass.splitlines())
        divisions = len(re.findall(r"\b(?:div|rem)\.[su](?:32|64)\b", kernel.asm["ptx"]))
        rows.append((name, instructions, divisions))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", help="a KernelBench-format program small enough for the interpreter")
    parser.add_argument("--knob", required=True, help="the codegen knob")
    parser.add_argument("--values", nargs="+", required=True, help="its values")
    args = parser.parse_args()
    os.environ.pop("TRITON_INTERPRET", None)  # compiling for the GPU target, not interpreting
    work = tempfile.mkdtemp(prefix="drtriton-sass-")
    program = os.path.abspath(args.program)
    counts = {}
    for value, (source, error) in convert_variants(program, work, args.knob, args.values).items():
        if source is None:
            sys.exit(f"kernel_sass: {args.knob}={value}: {error}")
        counts[value] = sass_counts(program, os.path.join(work, f"{os.path.basename(program)[:-3]}_{value}.py"))
    names = [name for name, _, _ in counts[args.values[0]]]
    header = ["kernel"] + [f"{args.knob}={v}: SASS (div/rem)" for v in args.values]
    rows = [[name] + [next((f"{n} ({d})" for k, n, d in counts[v] if k == name), "-") for v in args.values]
            for name in names]
    rows.append(["all"] + [f"{sum(n for _, n, _ in counts[v])} ({sum(d for _, _, d in counts[v])})"
                           for v in args.values])
    print(markdown_table(header, rows))


if __name__ == "__main__":
    main()
