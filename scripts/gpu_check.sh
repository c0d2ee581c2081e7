#!/usr/bin/env bash
# The GPU tier, run on the device machine (H200: PyTorch 2.11, Triton 3.6, Python 3.12, no
# package registry): builds drtriton (scripts/gpu_build.sh, carry .deps), then runs the
# verifier's adversarial, fault and honest suites on CUDA and the service's throughput
# benchmark, writing each table to $OUT (or results/).
#   there: bash scripts/gpu_check.sh        (carry .deps)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh

echo "== verifier suites on cuda:0"
python3 bench/verify_gpu.py --device cuda:0 --markdown "$OUT/verify_gpu.md" --json "$OUT/verify_gpu.json" 2>&1 | tee "$OUT/verify_gpu.log" | tail -70
suites=${PIPESTATUS[0]}

if [ $build_ok -eq 0 ]; then
  echo "== service throughput on the H200"
  python3 bench/verify_throughput.py --device cuda --gpus 0 -m 96 2>&1 | tee "$OUT/verify_throughput.txt" | tail -30
else
  echo "build failed: see $OUT/build.log"
fi
echo "suites exit $suites, build exit $build_ok"
