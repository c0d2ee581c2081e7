#!/usr/bin/env bash
# Triton GEMMs with the epilogue inside against cuBLAS, on the device machine: builds
# (scripts/gpu_build.sh, carry .deps), then bench/gemm_epilogue.py, its table in
# $OUT/gemm_epilogue.md.
#   there: bash scripts/gpu_gemm.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
echo "== bench/gemm_epilogue.py"
python3 bench/gemm_epilogue.py --out "$OUT/gemm_epilogue.md"
