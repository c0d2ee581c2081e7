#!/usr/bin/env bash
# One program judged on the GPU under each way the compiler can read its GEMMs' operands:
# TMA (the default), pointer loads (TMA turned off in the solution's _gemm_tma), TMA with K
# steps of 32, cuBLAS (--knob gemm=library) and every product a Triton GEMM (gemm=triton).
# Prints one line per route: passed, failed stage, reason, speedup against eager.
#   there: bash scripts/gpu_gemm_routes.sh PROGRAM.py      (carry .deps)
set -uo pipefail
cd "$(dirname "$0")/.."
PROGRAM=${1:?a program path}
source scripts/gpu_build.sh > /dev/null 2>&1
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
W=$(mktemp -d)
build/drtriton convert "$PROGRAM" -o "$W/tma.py" > /dev/null 2>&1
sed 's/    tma = (k \* itemsize/    tma = False and (k * itemsize/' "$W/tma.py" > "$W/pointers.py"
sed 's/64 if itemsize == 2 or tma else 32/64 if itemsize == 2 else 32/' "$W/tma.py" > "$W/tma_k32.py"
build/drtriton convert "$PROGRAM" --knob gemm=library -o "$W/library.py" > /dev/null 2>&1
build/drtriton convert "$PROGRAM" --knob gemm=triton -o "$W/triton_all.py" > /dev/null 2>&1
for route in tma pointers tma_k32 library triton_all; do
  build/drtriton verify "$PROGRAM" "$W/$route.py" --device cuda --no-compile-timing --json \
    > "$W/$route.json" 2> "$W/$route.err"
  python3 -c "import json; d = json.load(open('$W/$route.json')); print('$route', d.get('passed'),
d.get('failed_stage'), (d.get('reason') or '')[:200], d.get('speedup_eager'))" || tail -3 "$W/$route.err"
done
