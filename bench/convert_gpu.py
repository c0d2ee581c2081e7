"""The built-in compiler on the GPU: every example of examples/ and program of
tests/python/programs/convert/, its batch scaled up to GPU sizes, converted and verified on CUDA by `drtriton convert --device cuda --json`; prints
pass/fail and the verifier's timings (median ms: eager, torch.compile, the solution).

    python3 bench/convert_gpu.py [--scale 256] [--out results.md]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.environ.get("DRTRITON_BIN") or os.path.join(ROOT, "build", "drtriton")


def scaled(source, scale):
    """The program with its module-level batch_size constant multiplied by `scale`."""
    return re.sub(r"^batch_size = (\d+)$", lambda m: f"batch_size = {int(m.group(1)) * scale}",
                  source, flags=re.M)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=256, help="batch_size multiplier (default 256)")
    parser.add_argument("--out", default=None, help="also write the table (markdown) here")
    args = parser.parse_args()
    rows = []
    work = tempfile.mkdtemp(prefix="drtriton-convert-gpu-")
    paths = sorted(glob.glob(os.path.join(ROOT, "examples", "*.py")))
    paths += sorted(glob.glob(os.path.join(ROOT, "tests", "python", "programs", "convert", "*.py")))
    for path in paths:
        name = os.path.basename(path)[:-3]
        program = os.path.join(work, name + ".py")
        with open(path) as f, open(program, "w") as g:
            g.write(scaled(f.read(), args.scale))
        r = subprocess.run([BIN, "convert", program, "--device", "cuda", "--json"],
                           capture_output=True, text=True)
        try:
            v = json.loads(r.stdout)
        except ValueError:
            rows.append((name, "error: " + (r.stderr.strip().splitlines() or ["?"])[-1], "", "", "", "", ""))
            continue
        t = v.get("timing_ms") or {}
        med = lambda k: f"{t[k]['median']:.4f}" if isinstance(t.get(k), dict) else "-"
        sp = lambda k: f"{v[k]:.2f}x" if isinstance(v.get(k), (int, float)) else "-"
        status = "passed" if v["passed"] else f"rejected at {v.get('failed_stage')}: {v.get('reason')}"
        rows.append((name, status, med("eager"), med("compile"), med("candidate"),
                     sp("speedup_eager"), sp("speedup_compile")))
    header = ("| program | verdict | eager ms | compile ms | solution ms | vs eager | vs compile |\n"
              "| --- | --- | --- | --- | --- | --- | --- |")
    table = header + "\n" + "\n".join("| " + " | ".join(r) + " |" for r in rows)
    print(f"\nconvert_gpu: programs with batch_size x{args.scale}\n{table}")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
