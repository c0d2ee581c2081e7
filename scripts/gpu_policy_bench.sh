#!/usr/bin/env bash
# A trained policy against the built-in compiler on the held-out synthetic suites, on the
# device machine, with `drtriton bench` (correct, fast_p against eager and torch.compile):
#   1. build (scripts/gpu_build.sh, carry .deps),
#   2. `drtriton synth --suite` (fixed seeds, never trained on): PROGRAMS programs of
#      difficulty 1 and 2 at SIZE,
#   3. `drtriton bench` of each suite by the compiler, then by `model:CKPT` (SAMPLES answers
#      per program, the fastest accepted kept),
# then prints the tables. $OUT gets policy_bench.tar.gz (each bench's results.jsonl,
# summary.md and solutions).
#   there: CKPT=.data/ckpt_v4/ckpt bash scripts/gpu_policy_bench.sh   (carry .deps, the checkpoint)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }

CKPT=${CKPT:?CKPT= names the checkpoint directory}
SIZE=${SIZE:-small}
PROGRAMS=${PROGRAMS:-12}
SAMPLES=${SAMPLES:-4}
WORK=/tmp/drtriton-policy-bench
rm -rf "$WORK" && mkdir -p "$WORK"

build/drtriton synth --suite "$WORK/suite" --size "$SIZE" --count "$PROGRAMS" --numeric-check \
  > /dev/null 2>&1
for d in d01 d02; do
  for policy in compiler "model:$CKPT"; do
    name=${policy%%:*}_$d
    echo "== $d, $policy"
    build/drtriton bench "$WORK/suite/$d" --policy "$policy" --samples "$SAMPLES" \
      --no-kernelbench --out "$WORK/$name" 2> "$WORK/$name.log" | tail -n +3
  done
done
tar -czf "$OUT/policy_bench.tar.gz" -C "$WORK" --exclude suite .
