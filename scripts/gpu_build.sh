#!/usr/bin/env bash
# Sourced by the GPU-machine scripts: builds drtriton there against the Debian packages
# carried in .deps/ (unpacked into a prefix), since that machine has no package registry.
#   here:  mkdir -p .deps && (cd .deps && apt-get download libcpp-httplib-dev \
#            libcpp-httplib0.11 libsqlite3-dev libbrotli-dev libssl-dev zlib1g-dev)
# Sets build_ok (0 when build/drtriton was built) and the environment the tools need
# (numeric checks of synthetic programs run on the GPU there: DRTRITON_NUMERIC_DEVICE).
OUT=${OUT:-results}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python DRTRITON_PYTHON=python3 DRTRITON_NUMERIC_DEVICE=cuda
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
