#!/usr/bin/env bash
# The GPU tier, run on the device machine (H200: PyTorch 2.11, Triton 3.6, Python 3.12, no
# package registry): builds drtriton (scripts/gpu_build.sh, carry .deps), then runs the
# verifier's adversarial, fault and honest suites on CUDA, the hostile-candidate suite against
# a sandboxed service, and the service's throughput benchmark, writing each table to $OUT (or
# results/).
#   there: bash scripts/gpu_check.sh        (carry .deps)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu_build.sh

echo "== verifier suites on cuda:0"
python3 bench/verify_gpu.py --device cuda:0 --markdown "$OUT/verify_gpu.md" --json "$OUT/verify_gpu.json" 2>&1 | tee "$OUT/verify_gpu.log" | tail -70
suites=${PIPESTATUS[0]}

hostile=skipped
if [ $build_ok -eq 0 ] && python3 -c 'import pytest' 2>/dev/null; then
  # The service's first lines say whether the OS sandbox is on (else: why not); the cases
  # only the sandbox stops are skipped without it.
  echo "== hostile candidates against drtriton serve on cuda (tests/python/test_hostile_candidates.py)"
  HOSTILE_DEVICE=cuda DRTRITON_BIN=$PWD/build/drtriton python3 -m pytest -q -rs \
    tests/python/test_hostile_candidates.py 2>&1 | tee "$OUT/hostile_candidates.log" | tail -30
  hostile=${PIPESTATUS[0]}
  build/drtriton verify tests/eval/candidates/tasks/relu_scale.py \
    tests/eval/candidates/honest_relu_scale.py --device cuda --sandbox on 2>&1 | tail -3
fi

if [ $build_ok -eq 0 ]; then
  echo "== service throughput on the H200"
  python3 bench/verify_throughput.py --device cuda --gpus 0 -m 96 2>&1 | tee "$OUT/verify_throughput.txt" | tail -30
else
  echo "build failed: see $OUT/build.log"
fi
echo "suites exit $suites, build exit $build_ok, hostile exit $hostile"
