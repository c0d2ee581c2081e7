#!/usr/bin/env bash
# The built-in compiler on the device machine: builds (scripts/gpu_build.sh, carry .deps),
# runs the compiler's tests on CUDA (every operator case and program, verified on the GPU; the
# operator cases again in fp16 and bf16),
# then converts and times the examples at GPU sizes (bench/convert_gpu.py).
#   there: bash scripts/gpu_convert.sh [SCALE]
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
echo "== tests/python/test_convert.py and test_convert_half.py (every op case in fp16 and bf16) on cuda"
DRTRITON_TEST_DEVICE=cuda DRTRITON_CONVERT_ALL=1 python3 -m pytest -q -p no:cacheprovider tests/python/test_convert.py \
  tests/python/test_convert_half.py 2>&1 | tee "$OUT/test_convert_cuda.txt" | tail -30
echo "== bench/convert_gpu.py"
python3 bench/convert_gpu.py --scale "${1:-256}" --out "$OUT/convert_gpu.md"
