#!/usr/bin/env bash
# Verified candidates per minute through `drtriton serve`, cold and cached: see
# bench/verify_throughput.py (on the GPU machine: bash scripts/gpu_throughput.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python bench/verify_throughput.py "$@"
