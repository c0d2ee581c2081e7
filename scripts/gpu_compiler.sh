#!/usr/bin/env bash
# The compiler's choices measured on the device machine, in one call: builds
# (scripts/gpu_build.sh, carry .deps), then, each part stopped at its share of the call,
#   1. bench/gemm_epilogue.py: GEMM programs with --knob gemm=library and gemm=triton,
#   2. bench/conv_layout.py: conv programs with --knob layout=nchw and layout=channels_last,
#   3. tests/python/test_convert_half.py on CUDA: every operator case in fp16 and bf16,
#   4. bench/tune.py: `convert --tune` against the default knobs, and its cold and warm cost
#      (off unless TUNE_S is set),
#   5. bench/gemm_tiles.py: the Triton GEMM under several tiles (--knob gemm_tile; off unless
#      TILES_S is set),
# each table (markdown) in $OUT and printed last.
#   there: bash scripts/gpu_compiler.sh     (carry .deps; GEMM_S, CONV_S, HALF_S, TUNE_S,
#          TILES_S: the parts' seconds, 0 skips a part; GEMM_ARGS, CONV_ARGS, TUNE_ARGS, TILES_ARGS:
#          bench/gemm_epilogue.py's, bench/conv_layout.py's, bench/tune.py's and bench/gemm_tiles.py's options, e.g.
#          --limit 12)
#          GEMM_S=0 CONV_S=0 HALF_S=0 TILES_S=400 bash scripts/gpu_compiler.sh   (the tiles alone)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
if [ "${GEMM_S:-150}" != 0 ]; then
  echo "== bench/gemm_epilogue.py (${GEMM_S:-150} s)"
  timeout "${GEMM_S:-150}" python3 bench/gemm_epilogue.py --budget $(( ${GEMM_S:-150} - 40 )) \
    --out "$OUT/gemm_epilogue.md" ${GEMM_ARGS:-} > "$OUT/gemm_epilogue.log" 2>&1
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
if [ "${TUNE_S:-0}" != 0 ]; then
  echo "== bench/tune.py (${TUNE_S} s)"
  timeout "$TUNE_S" python3 bench/tune.py --budget $(( TUNE_S * 2 / 3 )) --out "$OUT/tune.md" \
    ${TUNE_ARGS:-} > "$OUT/tune.log" 2>&1
fi
if [ "${TILES_S:-0}" != 0 ]; then
  echo "== bench/gemm_tiles.py (${TILES_S} s)"
  timeout "$TILES_S" python3 bench/gemm_tiles.py --budget $(( TILES_S * 2 / 3 )) --out "$OUT/gemm_tiles.md" \
    ${TILES_ARGS:-} > "$OUT/gemm_tiles.log" 2>&1
fi
for f in gemm_epilogue conv_layout tune gemm_tiles; do
  if [ -f "$OUT/$f.md" ]; then echo "== $f"; cat "$OUT/$f.md"
  elif [ -f "$OUT/$f.log" ]; then echo "== $f (no table)"; tail -15 "$OUT/$f.log"; fi
done
