#!/usr/bin/env bash
# The built-in compiler on both synthetic distributions, on the device machine: builds
# (scripts/gpu_build.sh, carry .deps), writes the suites of difficulty 1, 2, 5 and 20 at
# bench sizes for --dist real and --dist uniform (PER_SUITE programs each, default 30:
# 240 programs, each traced, compiled by `drtriton convert`, then verified on CUDA and
# timed against eager and torch.compile by one `drtriton serve` with 8 workers, one
# batch per suite), and prints per suite the verifier pass rate and the median speedup
# over eager and over torch.compile of the programs that passed. Suites run in the order
# d1 real, d1 uniform, d2 real, ...; one that would start after DEADLINE_S (default 480 s)
# is reported as not run. LEVELS picks the difficulties (default 1,2,5,20). Measured: 12
# programs per suite, d1 to d5 both dists, took 128 s to write and compile and 261 s to
# verify; d20 alone then ran past the call's 560 s: give it a call of its own.
#   there: bash scripts/gpu_synth_real.sh [PER_SUITE]
#          LEVELS=20 bash scripts/gpu_synth_real.sh 12
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
PER_SUITE=${1:-30} python3 - <<'PY'
import glob, json, os, statistics, subprocess, sys, tempfile, time
from concurrent.futures import ProcessPoolExecutor

start = time.time()
sys.path.insert(0, "python")
from drtriton import frontend  # noqa: E402
from drtriton.service_client import Service  # noqa: E402

BIN, OUT, N = os.path.abspath("build/drtriton"), os.environ["OUT"], int(os.environ["PER_SUITE"])
LEVELS = [int(k) for k in os.environ.get("LEVELS", "1,2,5,20").split(",")]
DEADLINE_S = int(os.environ.get("DEADLINE_S", "480"))
WORK = tempfile.mkdtemp(prefix="drtriton-synth-real-")  # not $OUT: at most 8 files come back


def compile_one(path):
    """Trace and convert one program; (path, solution text or None, why)."""
    base = path[:-3]
    try:
        with open(base + ".json", "w") as f:
            f.write(frontend.to_json(frontend.trace_file(path, dynamic=True)))
    except Exception as e:  # a program the frontend cannot trace counts as a failure
        return path, None, f"trace: {str(e).splitlines()[0][:200]}"
    r = subprocess.run([BIN, "convert", base + ".json", "--no-verify", "-o", base + "_triton.py"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return path, None, "convert: " + (r.stderr.strip().splitlines() or ["?"])[-1][:200]
    return path, open(base + "_triton.py").read(), ""


suites = {}
for dist in ("real", "uniform"):
    folder = os.path.join(WORK, f"suite_{dist}")
    r = subprocess.run([BIN, "synth", "--suite", folder, "--dist", dist, "--count", str(N),
                        "--numeric-check"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"synth --dist {dist}: {r.stderr.strip()}")
    for k in LEVELS:
        suites[(dist, k)] = sorted(glob.glob(os.path.join(folder, f"d{k:02d}", "*.py")))
with ProcessPoolExecutor(8) as pool:
    compiled = {p: (sol, why) for p, sol, why in
                pool.map(compile_one, [p for ps in suites.values() for p in ps])}
print(f"suites written and compiled in {time.time() - start:.0f} s", flush=True)

rows, failures = [], []
header = ("| dist | difficulty | programs | compiled | passed | pass rate | median vs eager "
          "| median vs torch.compile | seconds |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
with Service(BIN, "--device", "cuda") as service:
    for k in LEVELS:
        for dist in ("real", "uniform"):
            paths = suites[(dist, k)]
            if time.time() - start > DEADLINE_S:
                rows.append(f"| {dist} | {k} | {len(paths)} | not run (time) | | | | | |")
                print(rows[-1], flush=True)
                continue
            t0 = time.time()
            ready = [p for p in paths if compiled[p][0] is not None]
            failures += [f"{os.path.basename(p)} ({dist}): {compiled[p][1]}" for p in paths if p not in ready]
            items = [{"task": open(p).read(), "candidate": compiled[p][0],
                      "options": {"device": "cuda", "compile": True, "seed": 7}} for p in ready]
            verdicts = service.post("/verify_batch", {"items": items})["verdicts"] if items else []
            passed = [v for v in verdicts if v["passed"]]
            for p, v in zip(ready, verdicts):
                if not v["passed"]:
                    failures.append(f"{os.path.basename(p)} ({dist}): {v.get('failed_stage')}: "
                                    f"{str(v.get('reason'))[:200]}")
            med = lambda key: (f"{statistics.median(v[key] for v in passed if v.get(key)):.2f}x"
                               if any(v.get(key) for v in passed) else "-")
            rows.append(f"| {dist} | {k} | {len(paths)} | {len(ready)} | {len(passed)} | "
                        f"{100 * len(passed) / max(len(paths), 1):.0f}% | {med('speedup_eager')} | "
                        f"{med('speedup_compile')} | {time.time() - t0:.0f} |")
            print(rows[-1], flush=True)
table = header + "\n" + "\n".join(rows)
print(f"\nsynth_real_gpu: {N} programs per suite, bench sizes, total {time.time() - start:.0f} s\n{table}")
print("\nfailures:\n" + "\n".join("  " + f for f in failures))
with open(os.path.join(OUT, "synth_real_gpu.md"), "w") as f:
    f.write(table + "\n\nfailures:\n" + "\n".join("- " + x for x in failures) + "\n")
PY
