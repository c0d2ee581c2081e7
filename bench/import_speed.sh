#!/usr/bin/env bash
# Import speed on this machine: see bench/import_speed.py.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python bench/import_speed.py
