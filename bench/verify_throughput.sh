#!/usr/bin/env bash
# Verified candidates per minute through `drtriton serve`, cold and cached: see
# bench/verify_throughput.py (on the GPU machine: --device cuda --gpus 0 --workers-per-gpu 4).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python bench/verify_throughput.py "$@"
