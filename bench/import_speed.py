"""How long `drtriton import` takes on a program sized for a GPU (three 8192x8192 Linears,
batch 1024: 768 MiB of weights if materialized), split into its parts, plus the whole
op-case corpus traced and lifted in one process. Prints a table; run by bench/import_speed.sh."""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "build", "drtriton")
PROGRAM = os.path.join(ROOT, "tests", "python", "programs", "gpu_sized.py")
sys.path.insert(0, os.path.join(ROOT, "python"))


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "g.ir")
        cli = timed(lambda: subprocess.run([BIN, "import", PROGRAM, "-o", out], check=True), 3)
        rows.append(("drtriton import gpu_sized.py (cold: new Python)", cli))
        start = time.perf_counter()
        import torch  # noqa: F401
        rows.append(("  of which: import torch", time.perf_counter() - start))
        from drtriton import frontend
        start = time.perf_counter()
        frontend.trace_file(PROGRAM)
        rows.append(("  of which: first torch.export (loads torch._dynamo)", time.perf_counter() - start))
        warm = timed(lambda: frontend.trace_file(PROGRAM), 5)
        rows.append(("trace gpu_sized.py, torch loaded (warm)", warm))
        traced = os.path.join(tmp, "t.json")
        with open(traced, "w") as f:
            f.write(frontend.to_json(frontend.trace_file(PROGRAM)))
        lift = timed(lambda: subprocess.run([BIN, "import", traced, "-o", out], check=True), 5)
        rows.append(("lift the traced graph in C++ (drtriton import t.json)", lift))
        cases = sorted(f for f in os.listdir(os.path.join(ROOT, "tests/ir/op_cases")))
        start = time.perf_counter()
        for case in cases:
            py = os.path.join(tmp, case + ".py")
            subprocess.run([BIN, "emit", os.path.join(ROOT, "tests/ir/op_cases", case), "-o", py],
                           check=True)
            with open(traced, "w") as f:
                f.write(frontend.to_json(frontend.trace_file(py)))
            subprocess.run([BIN, "import", traced, "-o", out], check=True)
        per_case = (time.perf_counter() - start) / len(cases)
        rows.append((f"emit + trace + lift, per op case ({len(cases)} cases, warm)", per_case))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{'step':62s} {'seconds':>8s}")
    for name, seconds in rows:
        print(f"{name:62s} {seconds:8.3f}")
    print(f"peak memory of this process: {peak:.0f} MiB (the weights alone would be 768 MiB)")


if __name__ == "__main__":
    main()
