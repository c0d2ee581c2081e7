#!/usr/bin/env bash
# The verifier service's throughput before and after a change, measured in one run on the same
# machine (bench/verify_throughput.py, M candidates each, 8 workers on one H200 by default).
#   here:  mkdir -p .snap/base && git archive BASE_REV | tar -x -C .snap/base   (.snap is ignored)
#   there: M=240 bash bench/verify_throughput_ab.sh .snap/base      (carry .deps and .snap)
# Builds both trees (scripts/gpu_build.sh), then runs base, working tree, ROUNDS times.
set -uo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/verify_throughput_ab.sh BASE_TREE}
M=${M:-240}
ROUNDS=${ROUNDS:-1}
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
(cd "$base" && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRTRITON_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
  -DSQLite3_LIBRARY="$lib/libsqlite3.a" -DSQLite3_INCLUDE_DIR="$PREFIX/usr/include" \
  -DDRTRITON_PYTHON=python3 > "$OUT/build_base.log" 2>&1 && cmake --build build >> "$OUT/build_base.log" 2>&1) \
  || { echo "base build failed: see $OUT/build_base.log"; exit 1; }
for round in $(seq "$ROUNDS"); do
  for tree in "$base" "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo now || echo base)
    echo "== $name ($tree), round $round, $M candidates"
    (cd "$tree" && PYTHONPATH="$tree/python" python3 bench/verify_throughput.py --device cuda --gpus 0 -m "$M" 2>&1) \
      | tee "$OUT/throughput_${name}_$round.txt" \
      | grep -E "verified per minute|passed|lock_held|lock_wait|timing lock busy|mean seconds, (correct|timed|load)|warning"
  done
done
