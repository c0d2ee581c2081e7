#!/usr/bin/env bash
# The built-in compiler on the device machine: builds (scripts/gpu_build.sh, carry .deps),
# then converts and verifies examples/*.py at GPU sizes (bench/convert_gpu.py).
#   there: bash scripts/gpu_convert.sh [SCALE]
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
python3 bench/convert_gpu.py --scale "${1:-256}" --out "$OUT/convert_gpu.md"
