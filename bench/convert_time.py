"""What it costs to get a fast forward: `drtriton convert` plus the solution's first forward
(Triton compiling its kernels), against torch.compile's first call, per program, each in a
fresh process, with cold and with warm caches (Triton's and Inductor's on-disk caches, in a
temporary folder each: a second process finds the first one's kernels). drtriton tunes
nothing at convert time (its launch configurations are chosen by rules), so its warm case is
the issue's "warm tuning cache". Needs a GPU.

    python3 bench/convert_time.py PROGRAM.py... [--out table.md]

Prints one row per program (seconds) and the geometric mean of the warm ratio
drtriton / torch.compile last.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")

# Runs in a fresh process: imports first (not timed), then the first forward, timed to its
# synchronize. argv: module path, class name ("Model" compiled, or "ModelNew"), program path,
# device.
FIRST_FORWARD = r"""
import importlib.util, sys, time, torch
path, cls, program, device = sys.argv[1:5]
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
def load(p, name):
    spec = importlib.util.spec_from_file_location(name, p)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
task = load(program, "task")
mod = load(path, "solution") if cls == "ModelNew" else task
torch.manual_seed(0)
model = getattr(mod, cls)(*task.get_init_inputs()).to(device)
inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in task.get_inputs()]
sync()
start = time.perf_counter()
if cls == "Model":
    model = torch.compile(model)
with torch.no_grad():
    model(*inputs)
sync()
print(f"FIRST {time.perf_counter() - start:.3f}")
"""


def first_forward(path, cls, program, env):
    device = env.get("BENCH_DEVICE", "cuda")  # cpu: a dry run of this script (TRITON_INTERPRET=1)
    done = subprocess.run([sys.executable, "-c", FIRST_FORWARD, path, cls, program, device], env=env,
                          capture_output=True, text=True, timeout=600)
    for line in done.stdout.splitlines():
        if line.startswith("FIRST "):
            return float(line.split()[1])
    raise RuntimeError(f"{program}: {cls}'s first forward failed: {done.stderr.strip()[-400:]}")


def measure(program, work):
    name = os.path.splitext(os.path.basename(program))[0]
    solution = os.path.join(work, name + "_solution.py")
    row = {"program": name}
    caches = {kind: os.path.join(work, name + "_" + kind) for kind in ("triton", "inductor")}
    env = dict(os.environ, TRITON_CACHE_DIR=caches["triton"], TORCHINDUCTOR_CACHE_DIR=caches["inductor"])
    for run in ("cold", "warm"):
        start = time.perf_counter()
        subprocess.run([BIN, "convert", program, "--no-verify", "-o", solution], env=env,
                       check=True, capture_output=True)
        row[f"convert_{run}"] = time.perf_counter() - start
        row[f"first_{run}"] = first_forward(solution, "ModelNew", program, env)
        row[f"compile_{run}"] = first_forward(program, "Model", program, env)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--out", help="also write the table (markdown) here")
    args = parser.parse_args()
    header = ("| program | convert (s) | first forward, cold | first forward, warm | drtriton warm | "
              "torch.compile cold | torch.compile warm | warm ratio |")
    lines = [header, "| --- " * 8 + "|"]
    print(header, flush=True)
    ratios = []
    with tempfile.TemporaryDirectory() as work:
        for program in args.programs:
            try:
                r = measure(program, work)
            except (RuntimeError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
                print(f"{program}: {e}", file=sys.stderr)
                continue
            ours = r["convert_warm"] + r["first_warm"]
            ratio = ours / r["compile_warm"]
            ratios.append(ratio)
            line = (f"| {r['program']} | {r['convert_warm']:.2f} | {r['first_cold']:.2f} | "
                    f"{r['first_warm']:.2f} | {ours:.2f} | {r['compile_cold']:.2f} | "
                    f"{r['compile_warm']:.2f} | {ratio:.2f}x |")
            lines.append(line)
            print(line, flush=True)
    if ratios:
        geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        summary = (f"\ndrtriton (convert + first forward) over torch.compile's first call, warm caches: "
                   f"geometric mean {geomean:.2f}x over {len(ratios)} programs, at most 2x on "
                   f"{sum(x <= 2 for x in ratios)}")
        lines.append(summary)
        print(summary)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
