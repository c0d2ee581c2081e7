#!/usr/bin/env bash
# The real-program corpus (tests/programs/real/) on the device machine, at full size: builds
# drtriton (scripts/gpu_build.sh, carry .deps), traces, imports and converts every program
# (`drtriton convert --no-verify`, solutions over 200 KB count as not compiled), verifies every
# solution on CUDA with all checks (drtriton serve --device cuda, one batch per chunk), then
# prints a table per folder: programs / imported / compiled / accepted / kernelbench_native /
# median speedup vs eager. Writes $OUT/gpu_corpus.json (rewritten after every chunk, so a run
# cut short still leaves what it verified) and $OUT/gpu_corpus.md (the table).
#   there: bash scripts/gpu_corpus.sh [FOLDER...]     (carry .deps; FOLDER: ops fused models)
# One device command may run 10 minutes: verification stops starting chunks after
# CORPUS_DEADLINE_S seconds from the start of the script (default 540) and lists the rest as
# "not verified (deadline)"; run one folder per call when the whole corpus does not fit.
# CORPUS_CHUNK (default 4) is how many solutions one /verify_batch request holds, and
# CORPUS_INFLIGHT (default 6) how many requests are out at once (the service has 8 workers a
# GPU: 24 solutions queued keep all of them busy past a slow one). CORPUS_PROCESSES frontend processes trace (default: half the cores, at most 8).
# CORPUS_WORKERS=N gives the service N workers a GPU (default: its own, 8 on a machine of 16 cores).
# CORPUS_KNOBS="sizes=static gemm=library" converts with those codegen knobs (docs/cli.md).
# CORPUS_COMPILE=1 times torch.compile too: the table's last columns then say how many
# solutions beat it and the geometric mean against it (over timings not flagged noisy).
# CORPUS_LIMIT=N takes the first N programs of each folder. CORPUS_WARM=1 then judges every
# solution once more (a comment added first: the verdict cache and Triton's miss, a worker's
# task cache hits where it still holds the task) and prints the verifier's warm throughput
# beside the cold one. The GPU memory each judgement reserved is printed against the memory
# gate's estimate. Once judging is over the machine's ceilings are measured (python -m
# drtriton.ceilings), and each accepted solution's share of its program's limit goes into the
# report (limit_fraction) and its median into the table, as in drtriton bench's summary.
# DRTRITON_QUIET_TIMING=1 judges under quiet timing (docs/verifier.md): the timings line then
# says how many timings were still disturbed, to set against the run without it;
# PYTORCH_CUDA_ALLOC_CONF reaches the workers too (the GPU memory line says which).
# DRTRITON_STEADY_RUNS=0 times every loop to 100 runs (or 1 s), as before quiet loops stopped at 25.
# DRTRITON_PRECOMPILE=0 judges without compiling each candidate's kernels ahead (docs/verifier.md).
# A rejected solution is converted again on the conservative routes (gemm=library,
# dot_precision=ieee) and judged in its place, as `drtriton convert` does; where that passes,
# the verdict says fallback (and the log "accepted on the conservative routes").
# CORPUS_SMALL=1 converts and verifies the SMALL versions instead (tests/programs/real/small.py),
# CORPUS_DEVICE=cpu verifies in Triton's interpreter: together, a dry run of this script's
# Python part on a machine without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
START_S=$(date +%s)
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }

echo "== corpus: convert at full size, verify on cuda"
CORPUS_START_S=$START_S python3 - "$@" <<'EOF' 2>&1 | tee "$OUT/gpu_corpus.log" | grep -v '^  '
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.getcwd()
BIN = os.path.join(ROOT, "build", "drtriton")
OUT = os.environ.get("OUT", "results")
CORPUS = os.path.join(ROOT, "tests", "programs", "real")
FOLDERS = sys.argv[1:] or ["ops", "fused", "models"]
MAX_SOLUTION_KB = 200
DEADLINE = int(os.environ["CORPUS_START_S"]) + float(os.environ.get("CORPUS_DEADLINE_S", "540"))
CHUNK = int(os.environ.get("CORPUS_CHUNK", "4"))
DEVICE = os.environ.get("CORPUS_DEVICE", "cuda")
SMALL = os.environ.get("CORPUS_SMALL", "0") == "1"
INFLIGHT = int(os.environ.get("CORPUS_INFLIGHT", "6"))
PROCESSES = int(os.environ.get("CORPUS_PROCESSES", str(max(1, min(8, (os.cpu_count() or 2) // 2)))))
LIMIT = int(os.environ.get("CORPUS_LIMIT", "0"))  # the first N programs of each folder; 0: all
WARM = os.environ.get("CORPUS_WARM", "0") == "1"
WORKERS = os.environ.get("CORPUS_WORKERS", "")  # the service's workers a GPU; empty: its default
COMPILE = os.environ.get("CORPUS_COMPILE", "0") == "1"  # time torch.compile too (slow: Inductor compiles each)
KNOBS = [arg for knob in os.environ.get("CORPUS_KNOBS", "").split() for arg in ("--knob", knob)]
sys.path.insert(0, os.path.join(ROOT, "python"))
from drtriton import ceilings  # noqa: E402
from drtriton.verifier import DEGENERATE_FLAGS as DEGENERATE  # noqa: E402
from drtriton.service_client import Service  # noqa: E402

sys.path.insert(0, CORPUS)
import small  # noqa: E402  (the SMALL convention)

for folder in FOLDERS:
    if not os.path.isdir(os.path.join(CORPUS, folder)):
        sys.exit(f"gpu_corpus: no folder tests/programs/real/{folder}")
# Traces and solutions stay out of $OUT: only a few files may come back from the device.
work = tempfile.mkdtemp(prefix="corpus_")
report = {"device": None, "folders": FOLDERS, "knobs": KNOBS[1::2], "small": SMALL, "max_solution_kb": MAX_SOLUTION_KB, "programs": {}}
programs = report["programs"]


def last_line(text):
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def save():
    with open(os.path.join(OUT, "gpu_corpus.json"), "w") as f:
        json.dump(report, f, indent=1)


# 1. Trace (PROCESSES frontend processes, each importing torch once, the trace on the meta
# device), then import and convert each traced program (threads running drtriton). The
# verifier service starts meanwhile: its workers' start-up overlaps the conversions.
def start_service():
    workers = ["--workers-per-gpu", WORKERS] if WORKERS else \
        [] if DEVICE == "cuda" else ["--workers-per-gpu", str(max(1, min(4, os.cpu_count() or 1)))]
    return Service(BIN, "--device", DEVICE, *workers, cwd=ROOT, ready_s=300)


t0 = time.time()
starter = ThreadPoolExecutor(1)
service_started = starter.submit(start_service)
for folder in FOLDERS:
    for path in sorted(glob.glob(os.path.join(CORPUS, folder, "*.py")))[:LIMIT or None]:
        name = f"{folder}/{os.path.basename(path)[:-3]}"
        stem = name.replace("/", "__")
        entry = programs[name] = {"folder": folder, "imported": False, "compiled": False,
                                  "error": None, "solution_kb": None, "verdict": None}
        if SMALL:
            with open(path) as f:
                text = small.small_source(f.read(), path)
            path = os.path.join(work, stem + ".py")
            with open(path, "w") as f:
                f.write(text)
        entry["task_path"] = path
names = list(programs)
env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
tracers = []
for i in range(min(PROCESSES, len(names))):
    listed = os.path.join(work, f"trace_list_{i}.txt")
    with open(listed, "w") as f:
        f.writelines(programs[n]["task_path"] + "\n" for n in names[i::PROCESSES])
    tracers.append(subprocess.Popen([sys.executable, "-m", "drtriton.frontend", "--dynamic",
                                     "--batch", listed, "-o", listed + ".jsonl"], env=env))


def import_and_convert(name, doc):
    entry, stem = programs[name], name.replace("/", "__")
    if "error" in doc:
        entry["error"] = f"trace: {doc['error']}"
        return
    entry["dynamic_error"] = doc.get("dynamic_error")  # why sizes are fixed, where they are
    traced = os.path.join(work, stem + ".traced.json")
    with open(traced, "w") as f:
        json.dump(doc, f)
    # Where the trace names a call that import cannot map, the program itself goes in, as a
    # user's `drtriton import/convert PROGRAM.py` would: that traces it again through torch's
    # decompositions of those calls (which torch versions keep whole differs).
    for source in (traced, entry["task_path"]):
        r = subprocess.run([BIN, "import", source, "-o", os.path.join(work, stem + ".ir")],
                           capture_output=True, text=True)
        if r.returncode == 0:
            break
    if r.returncode != 0:
        entry["error"] = last_line(r.stderr)
        return
    entry["imported"] = True
    # What the roofline counts (flops, conv_flops, io_bytes), for the share of the limit
    r = subprocess.run([BIN, "check", os.path.join(work, stem + ".ir"), "--work"],
                       capture_output=True, text=True)
    entry["work"] = json.loads(r.stdout) if r.returncode == 0 else None
    entry["source"] = source
    solution = os.path.join(work, stem + "_triton.py")
    r = subprocess.run([BIN, "convert", source, "--no-verify", *KNOBS, "-o", solution],
                       capture_output=True, text=True)
    if r.returncode != 0:
        entry["error"] = last_line(r.stderr)
        return
    kb = os.path.getsize(solution) / 1024
    entry["solution_kb"] = round(kb, 1)
    if kb > MAX_SOLUTION_KB:
        entry["error"] = f"solution of {kb:.0f} KB"
        return
    entry["compiled"] = True
    print(f"  converted {name} ({kb:.0f} KB)", flush=True)


with ThreadPoolExecutor(PROCESSES) as pool:
    jobs = []
    for i, tracer in enumerate(tracers):
        listed = os.path.join(work, f"trace_list_{i}.txt")
        if tracer.wait() != 0 or not os.path.exists(listed + ".jsonl"):
            for name in names[i::PROCESSES]:
                programs[name]["error"] = "trace: the frontend process failed"
            continue
        with open(listed + ".jsonl") as f:
            for name, line in zip(names[i::PROCESSES], f):
                jobs.append(pool.submit(import_and_convert, name, json.loads(line)))
    for job in jobs:
        job.result()
report["convert_s"] = round(time.time() - t0, 1)
compiled = [n for n, e in programs.items() if e["compiled"]]
print(f"converted {len(compiled)}/{len(programs)} in {report['convert_s']} s "
      f"({PROCESSES} processes; knobs: {' '.join(KNOBS[1::2]) or 'the defaults'})", flush=True)
save()


# 2. Verify every solution, all checks, in chunks of CHUNK solutions with INFLIGHT requests
# at once, so that every worker of the service has work (the report is saved after each).
def solution_path(name, fallback=False):
    return os.path.join(work, name.replace("/", "__") + ("_fallback.py" if fallback else "_triton.py"))


def task_and_solution(name, fallback=False):
    with open(programs[name]["task_path"]) as f, open(solution_path(name, fallback)) as g:
        return f.read(), g.read()


def convert_fallback(name):
    """The program on the conservative routes (cuBLAS products, fp32 FMAs in the dots), as
    `drtriton convert` writes it where its first solution is rejected; False where that is
    the same solution."""
    path = solution_path(name, True)
    r = subprocess.run([BIN, "convert", programs[name]["source"], "--no-verify", *KNOBS,
                        "--knob", "gemm=library", "--knob", "dot_precision=ieee", "-o", path],
                       capture_output=True, text=True)
    return r.returncode == 0 and open(path).read() != task_and_solution(name)[1]


def verify_chunk(service, chunk, warm=False, fallback=False):
    """Judge a chunk; `warm`: the same solutions again, each with a comment added first, so
    the verdict cache misses and, every kernel starting a line later, so does Triton's (its
    cache key holds the kernel's line), while a worker's task cache still holds the task
    (inputs, references, timings): a new candidate of a known task, as search and RL send
    them. `fallback`: the conservative solutions of rejected programs, which take the place of
    the first where they pass."""
    if time.time() > DEADLINE:
        if not warm:
            for name in chunk:
                programs[name]["verdict"] = {"passed": None, "reason": "not verified (deadline)"}
        return
    items = []
    for name in chunk:
        task, solution = task_and_solution(name, fallback)
        if warm:
            solution = "# the same solution, judged again (warm)\n" + solution
        items.append({"task": task, "candidate": solution,
                      "options": {"device": DEVICE, "compile": COMPILE, "seed": 7}})
    try:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
    except Exception as e:  # noqa: BLE001 - one failed request must not lose the rest
        verdicts = [{"passed": False, "failed_stage": "service", "reason": str(e)}] * len(chunk)
    with saving:
        if warm:
            for name, v in zip(chunk, verdicts):
                programs[name]["warm"] = {"passed": v.get("passed"), "seconds": v.get("seconds")}
            save()
            return
        for name, v in zip(chunk, verdicts):
            report["device"] = report["device"] or v.get("device")
            if fallback:
                programs[name]["fallback_reason"] = v.get("reason")
                if not v.get("passed"):
                    print(f"  {name}: the conservative solution is rejected too: {v.get('reason')}", flush=True)
                    continue
                os.replace(solution_path(name, True), solution_path(name))  # what warm judges again
            programs[name]["verdict"] = {k: v.get(k) for k in (
                "passed", "failed_stage", "reason", "kernelbench_native", "speedup_eager",
                "speedup_compile", "timing_ms", "flags", "seconds")}
            programs[name]["verdict"]["gpu_memory"] = (v.get("checks") or {}).get("gpu_memory")
            programs[name]["verdict"]["timing_attempts"] = (v.get("checks") or {}).get("timing_attempts")
            programs[name]["verdict"]["precompiled_shapes"] = (v.get("checks") or {}).get("precompiled_shapes")
            programs[name]["verdict"]["fallback"] = fallback
            status = ("accepted" + (" on the conservative routes" if fallback else "") if v.get("passed")
                      else f"rejected at {v.get('failed_stage')}: {v.get('reason')}")
            sp = v.get("speedup_eager")
            print(f"  {name}: {status}" + (f" ({sp:.2f}x eager)" if isinstance(sp, (int, float)) else ""),
                  flush=True)
        save()


t0 = time.time()
saving = threading.Lock()
with service_started.result() as service, ThreadPoolExecutor(INFLIGHT) as requests:
    chunks = [compiled[i:i + CHUNK] for i in range(0, len(compiled), CHUNK)]
    for done in [requests.submit(verify_chunk, service, chunk) for chunk in chunks]:
        done.result()
    report["verify_s"] = round(time.time() - t0, 1)  # the throughput's, first verdicts only
    t0 = time.time()
    # 2a. As `drtriton convert` does: a rejected program on the conservative routes, judged in
    # its first solution's place (the verdict says fallback where that one passed).
    rejected = [n for n in compiled if (programs[n]["verdict"] or {}).get("passed") is False]
    retried = [n for n in rejected if convert_fallback(n)]
    for done in [requests.submit(verify_chunk, service, [n], False, True) for n in retried]:
        done.result()
    report["fallback"] = {"judged": retried, "seconds": round(time.time() - t0, 1)}
    if WARM:  # 2b. every solution once more, warm
        t0 = time.time()
        for done in [requests.submit(verify_chunk, service, chunk, True) for chunk in chunks]:
            done.result()
        report["warm_s"] = round(time.time() - t0, 1)
starter.shutdown()

# 2c. The machine's ceilings, measured once the judging is over (its timed runs must have the
# GPU alone), and each accepted solution's share of its program's limit: the time no kernel can
# beat (drtriton.ceilings.limit_fraction, drtriton bench's roofline) over its median time.
ceilings_path = os.path.join(work, "ceilings.json")
r = subprocess.run([sys.executable, "-m", "drtriton.ceilings", "--device", DEVICE, "--out", ceilings_path],
                   env=env, capture_output=True, text=True)
report["ceilings"] = json.load(open(ceilings_path)) if r.returncode == 0 else None
for e in programs.values():
    if e.get("work") and report["ceilings"]:
        e["limit_fraction"] = ceilings.limit_fraction(e["work"], report["ceilings"], e["verdict"] or {})

# 3. The table, per folder, and the failures.
rows, totals = [], {}
for folder in FOLDERS + ["all"]:
    entries = [e for e in programs.values() if folder == "all" or e["folder"] == folder]
    verdicts = [e["verdict"] or {} for e in entries]
    accepted = [v for v in verdicts if v.get("passed")]
    speedups = [v["speedup_eager"] for v in accepted if isinstance(v.get("speedup_eager"), (int, float))]
    # Against eager and torch.compile: the timings no other GPU work disturbed (not timing_noisy)
    # of programs whose verdict speaks of their kernels (not degenerate: an output that does not
    # depend on the inputs, a program random as written; never counted as wins).
    timed = [v for v in accepted if isinstance(v.get("speedup_eager"), (int, float))
             and not {"timing_noisy", *DEGENERATE} & set(v.get("flags") or [])]
    row = {"programs": len(entries), "imported": sum(e["imported"] for e in entries),
           "compiled": sum(e["compiled"] for e in entries), "accepted": len(accepted),
           "kernelbench_native": sum(v.get("kernelbench_native") is True for v in accepted),
           "not_verified": sum(v.get("passed") is None and bool(v) for v in verdicts),
           "median_speedup_eager": round(statistics.median(speedups), 3) if speedups else None,
           "timed": len(timed),
           "median_limit_fraction": (statistics.median(f) if (f := [
               e["limit_fraction"] for e in entries if e.get("limit_fraction")]) else None)}
    for against in ("eager", "compile"):
        xs = [v[f"speedup_{against}"] for v in timed if isinstance(v.get(f"speedup_{against}"), (int, float))]
        row[f"faster_than_{against}"] = sum(x > 1 for x in xs) if xs else None
        row[f"geomean_{against}"] = round(math.exp(sum(map(math.log, xs)) / len(xs)), 3) if xs else None
        row[f"timed_{against}"] = len(xs)
    totals[folder] = row
    med = f"{row['median_speedup_eager']:.3g}x" if speedups else "-"
    against = "".join(f" | {row[f'faster_than_{a}']} of {row[f'timed_{a}']} | {row[f'geomean_{a}']:.3g}x"
                      if row[f"timed_{a}"] else " | - | -" for a in ("eager", "compile"))
    share = f"{100 * row['median_limit_fraction']:.3g}%" if row["median_limit_fraction"] is not None else "-"
    rows.append(f"| {folder} | {row['programs']} | {row['imported']} | {row['compiled']} | "
                f"{row['accepted']} | {row['kernelbench_native']} | {med}{against} | {share} |")
report["summary"] = totals
save()
failures = sorted((n, e["error"] or (e["verdict"] or {}).get("reason")) for n, e in programs.items()
                  if not (e["verdict"] or {}).get("passed"))
print("\nnot accepted:")
for name, why in failures:
    fixed = programs[name].get("dynamic_error")
    print(f"- {name}: {why}" + (f" [sizes fixed: {fixed}]" if fixed else ""))
not_verified = totals["all"]["not_verified"]
table = ("| folder | programs | imported | compiled | accepted | kernelbench_native | median speedup vs eager "
         "| faster than eager (timed) | geomean vs eager | faster than torch.compile | geomean vs torch.compile "
         "| share of the limit (median) |\n"
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" + "\n".join(rows))
with open(os.path.join(OUT, "gpu_corpus.md"), "w") as f:
    f.write(table + "\n")
# Where the workers' time went: seconds by verdict stage, summed over the verdicts.
stages = {}
for e in programs.values():
    for stage, sec in ((e["verdict"] or {}).get("seconds") or {}).items():
        stages[stage] = stages.get(stage, 0.0) + sec
verified = sum((e["verdict"] or {}).get("passed") is not None for e in programs.values())
report["throughput"] = {"verdicts": verified, "per_minute": round(60 * verified / max(report["verify_s"], 1e-9), 1),
                        "worker_seconds_by_stage": {k: round(v, 1) for k, v in stages.items()}}
save()
precompiled = [e["verdict"].get("precompiled_shapes") for e in programs.values() if e["verdict"]]
report["throughput"]["precompiled"] = sum(bool(s) for s in precompiled)
print(f"\nverifier: {verified} verdicts in {report['verify_s']} s = {report['throughput']['per_minute']} a minute; "
      "worker seconds by stage: " + ", ".join(f"{k} {v:.0f}" for k, v in stages.items())
      + f"; kernels compiled ahead for {report['throughput']['precompiled']} (precompile "
      + ("off" if os.environ.get("DRTRITON_PRECOMPILE") == "0" else "on") + ")")
# How many timings other GPU work disturbed: spread past NOISY_SPREAD of their median (all
# timings), timed again (checks.timing_attempts), still noisy (flag timing_noisy).
from drtriton.verifier.timing import NOISY_SPREAD  # noqa: E402
timings = [s for e in programs.values() for s in ((e["verdict"] or {}).get("timing_ms") or {}).values()
           if isinstance(s, dict) and s.get("median")]
spreads = [s["iqr"] / s["median"] for s in timings]
report["timing"] = {
    "timings": len(spreads), "noisy": sum(x > NOISY_SPREAD for x in spreads),
    # runs whose enqueueing outlasted the GPU's sleep (timing.Runs), left out or counted
    "with_late_runs": sum(s.get("late", 0) > 0 for s in timings),
    "late_runs": sum(s.get("late", 0) for s in timings), "runs": sum(s.get("runs", 0) for s in timings),
    "timed_again": sum(bool((e["verdict"] or {}).get("timing_attempts")) for e in programs.values()),
    "flagged": sum("timing_noisy" in ((e["verdict"] or {}).get("flags") or []) for e in programs.values()),
    "quiet": os.environ.get("DRTRITON_QUIET_TIMING") == "1"}
save()
print(f"timings: {report['timing']['noisy']} of {report['timing']['timings']} spread past "
      f"{NOISY_SPREAD:.0%} of their median; {report['timing']['timed_again']} verdicts timed again, "
      f"{report['timing']['flagged']} flagged timing_noisy (quiet timing "
      f"{'on' if report['timing']['quiet'] else 'off'}); {report['timing']['with_late_runs']} had late "
      f"runs ({report['timing']['late_runs']} late, {report['timing']['runs']} counted)")
# The memory gate's estimate against the most the judging worker reserved (checks.gpu_memory).
memory = [(name, m) for name, e in programs.items()
          if (m := (e["verdict"] or {}).get("gpu_memory")) and m.get("peak_bytes") and m.get("input_bytes")]
if memory:
    over = sorted(((m["peak_bytes"] / m["estimate_bytes"], name, m) for name, m in memory), reverse=True)
    report["memory"] = {"judged": len(memory), "over_estimate": sum(r > 1 for r, _, _ in over),
                        "largest_peak_per_input_byte": round(max(m["peak_bytes"] / m["input_bytes"] for _, m in memory), 1)}
    save()
    report["memory"]["allocator"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    print(f"\nGPU memory (PYTORCH_CUDA_ALLOC_CONF={report['memory']['allocator']!r}): "
          f"{report['memory']['over_estimate']} of {len(memory)} judgements reserved more than "
          f"the gate's estimate; the most per input byte {report['memory']['largest_peak_per_input_byte']}; "
          "the largest over it (peak / estimate, input GB): " + ", ".join(
              f"{name} {r:.2f} ({m['input_bytes'] / 1e9:.2f})" for r, name, m in over[:6] if r > 1))
warm = [e["warm"] for e in programs.values() if e.get("warm")]
if warm:
    same = sum(w["passed"] == (e["verdict"] or {}).get("passed") for e in programs.values() if (w := e.get("warm")))
    warm_stages = {}
    for w in warm:
        for stage, sec in (w["seconds"] or {}).items():
            warm_stages[stage] = warm_stages.get(stage, 0.0) + sec
    report["throughput"]["warm"] = {"verdicts": len(warm), "seconds": report["warm_s"],
                                    "per_minute": round(60 * len(warm) / max(report["warm_s"], 1e-9), 1),
                                    "same_verdict": same,
                                    "worker_seconds_by_stage": {k: round(v, 1) for k, v in warm_stages.items()}}
    save()
    print(f"verifier, warm: {len(warm)} verdicts in {report['warm_s']} s = "
          f"{report['throughput']['warm']['per_minute']} a minute ({same} the same as cold); worker seconds by stage: "
          + ", ".join(f"{k} {v:.0f}" for k, v in warm_stages.items()))
print(f"\ncorpus on {report['device']} (convert {report['convert_s']} s, verify {report['verify_s']} s"
      + (f", {not_verified} not verified: deadline" if not_verified else "") + f"); report: {OUT}/gpu_corpus.json")
print(table)
EOF
exit "${PIPESTATUS[0]}"
