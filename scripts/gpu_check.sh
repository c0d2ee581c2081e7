#!/usr/bin/env bash
# The GPU tier, run on the device machine (H200: PyTorch 2.11, Triton 3.6, Python 3.12, no
# package registry). Builds drtriton against Debian packages carried in .deps/ (unpacked
# into a prefix), then runs the verifier's adversarial, fault and honest suites on CUDA
# and the service's throughput benchmark, writing each table to $OUT (or results/).
#   here:  mkdir -p .deps && (cd .deps && apt-get download libcpp-httplib-dev \
#            libcpp-httplib0.11 libsqlite3-dev libbrotli-dev libssl-dev zlib1g-dev)
#   there: bash scripts/gpu_check.sh        (carry .deps)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-results}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python DRTRITON_PYTHON=python3
PREFIX=/tmp/drtriton-deps
mkdir -p "$PREFIX"
for deb in .deps/*.deb; do dpkg -x "$deb" "$PREFIX"; done
export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
lib=$PREFIX/usr/lib/x86_64-linux-gnu

echo "== machine"
nvidia-smi -L; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'

echo "== build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRTRITON_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
  -DSQLite3_LIBRARY="$lib/libsqlite3.a" -DSQLite3_INCLUDE_DIR="$PREFIX/usr/include" \
  -DDRTRITON_PYTHON=python3 > "$OUT/build.log" 2>&1 && cmake --build build >> "$OUT/build.log" 2>&1
build_ok=$?
tail -3 "$OUT/build.log"

echo "== verifier suites on cuda:0"
python3 bench/verify_gpu.py --device cuda:0 --markdown "$OUT/verify_gpu.md" --json "$OUT/verify_gpu.json" 2>&1 | tee "$OUT/verify_gpu.log" | tail -70
suites=${PIPESTATUS[0]}

if [ $build_ok -eq 0 ]; then
  echo "== service throughput on the H200"
  python3 bench/verify_throughput.py --device cuda --gpus 0 \
    --workers-per-gpu 4 -m 64 2>&1 | tee "$OUT/verify_throughput.txt" | tail -20
else
  echo "build failed: see $OUT/build.log"
fi
echo "suites exit $suites, build exit $build_ok"
