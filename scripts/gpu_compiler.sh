#!/usr/bin/env bash
# The compiler's choices measured on the device machine, in one call: builds
# (scripts/gpu_build.sh, carry .deps), then, each part stopped at its share of the call,
#   1. bench/gemm_epilogue.py: GEMM programs with --knob gemm=library and gemm=triton,
#   2. bench/conv_layout.py: conv programs with --knob layout=nchw and layout=channels_last,
#   3. tests/python/test_convert_half.py on CUDA: every operator case in fp16 and bf16,
# each table (markdown) in $OUT and printed last.
#   there: bash scripts/gpu_compiler.sh     (carry .deps; GEMM_S, CONV_S, HALF_S: the parts'
#          seconds, 0 skips a part; CONV_ARGS: bench/conv_layout.py's options, e.g. --limit 12)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
if [ "${GEMM_S:-150}" != 0 ]; then
  echo "== bench/gemm_epilogue.py (${GEMM_S:-150} s)"
  timeout "${GEMM_S:-150}" python3 bench/gemm_epilogue.py --budget $(( ${GEMM_S:-150} - 40 )) \
    --out "$OUT/gemm_epilogue.md" > "$OUT/gemm_epilogue.log" 2>&1
fi
if [ "${CONV_S:-180}" != 0 ]; then
  echo "== bench/conv_layout.py (${CONV_S:-180} s)"
  timeout "${CONV_S:-180}" python3 bench/conv_layout.py --out "$OUT/conv_layout.md" \
    ${CONV_ARGS:-} > "$OUT/conv_layout.log" 2>&1
fi
if [ "${HALF_S:-150}" != 0 ]; then
  echo "== test_convert_half.py on cuda (${HALF_S:-150} s)"
  DRTRITON_TEST_DEVICE=cuda timeout "${HALF_S:-150}" python3 -m pytest -q -p no:cacheprovider \
    tests/python/test_convert_half.py > "$OUT/test_convert_half_cuda.txt" 2>&1
  tail -25 "$OUT/test_convert_half_cuda.txt"
fi
for f in gemm_epilogue conv_layout; do
  echo "== $f"; if [ -f "$OUT/$f.md" ]; then cat "$OUT/$f.md"; else tail -15 "$OUT/$f.log"; fi
done
