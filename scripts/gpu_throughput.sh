#!/usr/bin/env bash
# Verifier throughput on the device machine: builds (scripts/gpu_build.sh, carry .deps),
# profiles one worker by stage, then runs the service benchmark for each worker count given.
#   there: bash scripts/gpu_throughput.sh [M] [W ...]
# M candidates (default 96) for each worker count W (default: serve's own choice, "auto").
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
count=${1:-96}
shift || true
workers=("${@:-auto}")
echo "== one worker, seconds by stage"
python3 bench/verify_profile.py --device cuda:0 -m 24 2>&1 | tee "$OUT/verify_profile.txt" | tail -12
for w in "${workers[@]}"; do
  echo "== service, $w workers, $count candidates"
  flag=(); [ "$w" = auto ] || flag=(--workers-per-gpu "$w")
  python3 bench/verify_throughput.py --device cuda --gpus 0 "${flag[@]}" -m "$count" \
    2>&1 | tee "$OUT/verify_throughput_w$w.txt" | tail -24
done
