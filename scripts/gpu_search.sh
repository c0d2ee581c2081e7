#!/usr/bin/env bash
# Test-time search against the plain policy, for one or several policies, on the device
# machine, with `drtriton bench`:
#   1. build (scripts/gpu_build.sh, carry .deps),
#   2. the programs: DIRS, folders of KernelBench-format programs (default: REAL, the real
#      fused-block corpus unless REAL= is given, and the synthetic suites SUITES, default
#      d05, at SIZE, default bench, LIMIT programs each),
#   3. per folder and per policy of POLICIES (default the compiler), `drtriton bench` (with
#      KernelBench's own protocol where KERNELBENCH=1), then `bench --search` (fragments of up
#      to MAX_OPS operators; VARIANTS answers each from the compiler, SAMPLES from a model;
#      BUDGET seconds a program), the first LIMIT (SEARCH_LIMIT) programs of each folder, all plain benches
#      first; RESUME_CHECK=SUITE first runs that suite's plain bench cut after CUT_S seconds
#      and resumed,
# then prints the tables and, per program, each policy's speedup against eager plain and
# searched, and which of them was fastest. The benches live in /tmp/drtriton-search and
# resume (RESUME=1) in a later call while the machine is still warm; each bench stops
# starting chunks when the call's DEADLINE_S (default 540 s from the start) is near, so a cut
# run loses nothing. $OUT gets search_bench.tar.gz (results.jsonl, summary.md, plots, reports).
# An outer `timeout` must leave 40 s past DEADLINE_S: a bench cut by SIGINT may take 30 s more to
# stop, and a script killed before its last pack leaves nothing of that bench (a search bench
# cut so, with DEADLINE_S=215 under `timeout 225`, came back empty).
#   there: bash scripts/gpu_search.sh                                     (carry .deps)
#          POLICIES="compiler model:CKPT" REAL= SUITES="d02 d05" SIZE=small bash scripts/gpu_search.sh
#                                                        (carry the checkpoint too)
#          REAL= SUITES="d01 d02 d05 d20" MODES=plain KERNELBENCH=1 RESUME_CHECK=d02 bash scripts/gpu_search.sh
set -uo pipefail
cd "$(dirname "$0")/.."
START_S=$(date +%s)
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }

POLICIES=${POLICIES:-${POLICY:-compiler}}
MODES=${MODES:-plain search}
LIMIT=${LIMIT:-8}
MAX_OPS=${MAX_OPS:-5}
VARIANTS=${VARIANTS:-2}
SAMPLES=${SAMPLES:-4}
CHUNK=${CHUNK:-2}
SIZE=${SIZE:-bench}
SUITES=${SUITES:-d05}
DEADLINE_S=${DEADLINE_S:-540}
WORK=/tmp/drtriton-search
if [ "${RESUME:-0}" != 1 ]; then rm -rf "$WORK"; fi
mkdir -p "$WORK"
if [ -z "${DIRS:-}" ]; then
  [ -d "$WORK/suite" ] || build/drtriton synth --suite "$WORK/suite" --size "$SIZE" \
    --count "$LIMIT" --numeric-check > /dev/null 2>&1
  DIRS=${REAL-tests/programs/real/fused}
  for s in $SUITES; do DIRS="$DIRS $WORK/suite/$s"; done
fi

left() { echo $(( DEADLINE_S - ($(date +%s) - START_S) )); }
pack() { tar -czf "$OUT/search_bench.tar.gz" -C "$WORK" --exclude suite --exclude '*.sqlite' .; }
tag() { echo "${1%%:*}"; }  # compiler, model, endpoint: one policy of each kind per run
bench() {  # bench DIR POLICY MODE OUT [LIMIT_S]: one bench, cut by SIGINT after LIMIT_S seconds
  local flags="" kb="--no-kernelbench"
  [ "$3" = search ] && flags="--search --max-ops $MAX_OPS --variants $VARIANTS ${BUDGET:+--budget $BUDGET}"
  [ "$3" = plain ] && [ "${KERNELBENCH:-0}" = 1 ] && kb=""
  # SIGINT: bench keeps what it judged and drops the chunk in hand; KILL if it lingers.
  local limit=$LIMIT
  [ "$3" = search ] && limit=${SEARCH_LIMIT:-$LIMIT}
  timeout --signal=INT --kill-after=30 "$5" build/drtriton bench "$1" --policy "$2" \
    --samples "$SAMPLES" --limit "$limit" --chunk "$CHUNK" $kb $flags --out "$4" 2>> "$4.log"
}
# RESUME_CHECK=SUITE: that suite's plain bench, cut by SIGINT after CUT_S seconds and resumed,
# to set beside a whole one (same verdicts; timings within their noise).
if [ -n "${RESUME_CHECK:-}" ]; then
  cut="$WORK/${RESUME_CHECK}_resumed" policy=${POLICIES%% *}
  bench "$WORK/suite/$RESUME_CHECK" "$policy" plain "$cut" "${CUT_S:-30}" > /dev/null
  echo "== $RESUME_CHECK cut after ${CUT_S:-30} s with $(cat "$cut/results.jsonl" 2>/dev/null | wc -l) programs done, then resumed:"
  bench "$WORK/suite/$RESUME_CHECK" "$policy" plain "$cut" "$(left)" | tail -n +3
  grep -h "done before" "$cut.log" | tail -1
  pack
fi
for mode in $MODES; do
  for dir in $DIRS; do
    name=$(basename "$dir")
    for policy in $POLICIES; do
      run="${name}_$(tag "$policy")_$mode"
      t=$(left)
      if [ "$t" -lt 30 ]; then echo "== $run: no time left (RESUME=1 continues)"; continue; fi
      echo "== $run ($policy, $t s left)"
      bench "$dir" "$policy" $mode "$WORK/$run" "$t" | tail -n +3
      pack  # whatever ends the call later, this much comes back
    done
  done
done

echo "== per program: speedup against eager (x: not accepted; blank: not run), the fastest marked *"
runs=""
for policy in $POLICIES; do for mode in $MODES; do runs="$runs $(tag "$policy")_$mode"; done; done
python3 - "$WORK" "$runs" $DIRS <<'PY'
import json, os, sys
work, runs, dirs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def rows(path):
    try:
        return {r["id"]: r for r in map(json.loads, open(os.path.join(path, "results.jsonl")))}
    except OSError:
        return {}
for d in dirs:
    name = os.path.basename(d.rstrip("/"))
    table = {run: rows(f"{work}/{name}_{run}") for run in runs}
    wins = dict.fromkeys(runs, 0)
    print(f"\n{name}\n| program | " + " | ".join(runs) + " |\n|" + " --- |" * (len(runs) + 1))
    for pid in sorted(set().union(*table.values())):
        speed = {run: table[run][pid].get("speedup_eager") if table[run].get(pid, {}).get("passed")
                 else None for run in runs}
        best = max((v for v in speed.values() if v), default=None)
        cells = []
        for run in runs:
            if pid not in table[run]:
                cells.append("")
            elif speed[run] is None:
                cells.append("x")
            else:
                cells.append(f"{speed[run]:.2f}x" + ("*" if speed[run] == best else ""))
                wins[run] += speed[run] == best
        print(f"| {pid} | " + " | ".join(cells) + " |")
    print("fastest (ties count for each): " + ", ".join(f"{r} {n}" for r, n in wins.items()))
PY
pack
