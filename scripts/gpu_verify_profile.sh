#!/usr/bin/env bash
# Where the verifier's time goes on real programs: builds drtriton (scripts/gpu_build.sh, carry
# .deps), converts each PROGRAM (`drtriton convert --no-verify`), then judges every solution
# in one worker, cold and then warm, under cProfile (bench/verify_profile.py --pair). Prints
# the seconds by stage per judgement and the worker's top functions; writes
# $OUT/verify_profile_real.txt and the raw profile $OUT/worker.prof (pstats).
#   there: bash scripts/gpu_verify_profile.sh tests/programs/real/models/vgg11.py [...]
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: scripts/gpu_verify_profile.sh PROGRAM.py..."; exit 2; }
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
work=$(mktemp -d)
pairs=()
for program in "$@"; do
  solution="$work/$(basename "$program")"
  if build/drtriton convert "$program" --no-verify -q -o "$solution" > "$work/convert.log" 2>&1; then
    pairs+=(--pair "$program" "$solution")
  else
    echo "convert failed: $program"; tail -3 "$work/convert.log"
  fi
done
python3 bench/verify_profile.py --device cuda:0 "${pairs[@]}" --cprofile "$OUT/worker.prof" \
  > "$OUT/verify_profile_real.txt" 2>&1
head -$(( 2 + 2 * $# )) "$OUT/verify_profile_real.txt" | tail -n +2
grep -A 42 "functions in drtriton by" "$OUT/verify_profile_real.txt" | cut -c1-150
