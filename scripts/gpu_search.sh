#!/usr/bin/env bash
# Test-time search against the plain policy, on the device machine, with `drtriton bench`:
#   1. build (scripts/gpu_build.sh, carry .deps),
#   2. the programs: DIRS, folders of KernelBench-format programs (default: the real
#      fused-block corpus and the synthetic suite of difficulty 5 at bench sizes),
#   3. per folder, `drtriton bench` with POLICY (default the compiler), then `bench
#      --search` (fragments of up to MAX_OPS operators, VARIANTS answers each), the first
#      LIMIT programs of each folder,
# then prints both tables per folder and, per program, the two speedups against eager and
# torch.compile, and the search's choice. The benches live in /tmp/drtriton-search and resume
# (RESUME=1) in a later call while the machine is still warm; each bench stops starting
# chunks when the call's DEADLINE_S (default 540 s from the start) is near, so a cut run
# loses nothing. $OUT gets search_bench.tar.gz (results.jsonl, summary.md, plots, reports).
#   there: bash scripts/gpu_search.sh                         (carry .deps)
#          POLICY=model:.data/ckpt_v4/ckpt bash scripts/gpu_search.sh   (carry the checkpoint too)
set -uo pipefail
cd "$(dirname "$0")/.."
START_S=$(date +%s)
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }

POLICY=${POLICY:-compiler}
LIMIT=${LIMIT:-8}
MAX_OPS=${MAX_OPS:-5}
VARIANTS=${VARIANTS:-2}
SAMPLES=${SAMPLES:-4}
DEADLINE_S=${DEADLINE_S:-540}
WORK=/tmp/drtriton-search
if [ "${RESUME:-0}" != 1 ]; then rm -rf "$WORK"; fi
mkdir -p "$WORK"
if [ -z "${DIRS:-}" ]; then
  [ -d "$WORK/suite" ] || build/drtriton synth --suite "$WORK/suite" --size bench --count "$LIMIT" \
    --numeric-check > /dev/null 2>&1
  DIRS="tests/programs/real/fused $WORK/suite/d05"
fi

left() { echo $(( DEADLINE_S - ($(date +%s) - START_S) )); }
for dir in $DIRS; do
  name=$(basename "$dir")
  for mode in plain search; do
    flags=""; [ $mode = search ] && flags="--search --max-ops $MAX_OPS --variants $VARIANTS"
    t=$(left)
    if [ "$t" -lt 30 ]; then echo "== $name, $mode: no time left (RESUME=1 continues)"; continue; fi
    echo "== $name, $mode ($t s left)"
    timeout --signal=INT "$t" build/drtriton bench "$dir" --policy "$POLICY" --samples "$SAMPLES" \
      --limit "$LIMIT" --chunk 2 --no-kernelbench $flags --out "$WORK/${name}_$mode" \
      2> "$WORK/${name}_$mode.log" | tail -n +3
  done
done

echo "== per program: speedup against eager / torch.compile, plain and searched"
python3 - "$WORK" $DIRS <<'PY'
import json, os, sys
work, dirs = sys.argv[1], sys.argv[2:]
def rows(path):
    try:
        return {r["id"]: r for r in map(json.loads, open(os.path.join(path, "results.jsonl")))}
    except OSError:
        return {}
def x(r, key):
    v = r.get(key) if r and r.get("passed") else None
    return f"{v:.2f}x" if isinstance(v, (int, float)) else "-"
for d in dirs:
    name = os.path.basename(d.rstrip("/"))
    plain, search = rows(f"{work}/{name}_plain"), rows(f"{work}/{name}_search")
    print(f"\n{name}: program | plain eager | plain compile | search eager | search compile | chosen")
    for pid in sorted(set(plain) | set(search)):
        s = search.get(pid)
        chosen = (s or {}).get("search", {}).get("chosen", "-") if s and s.get("passed") else "-"
        print(f"  {pid} | {x(plain.get(pid), 'speedup_eager')} | {x(plain.get(pid), 'speedup_compile')}"
              f" | {x(s, 'speedup_eager')} | {x(s, 'speedup_compile')} | {chosen}")
PY
tar -czf "$OUT/search_bench.tar.gz" -C "$WORK" --exclude suite --exclude '*.sqlite' .
