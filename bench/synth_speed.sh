#!/usr/bin/env bash
# CSP-DAG speed on this machine: 100,000 programs of difficulty 1 to 5 (target: under 60 s
# on 2 cores; the paper's generator took about 1.5 h for 100k on 32 cores), then the
# exact count of structures at difficulty 1, 5 and 20.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./build/drtriton synth --count 100000 --difficulty 1:5 --seed 1 --jobs "$(nproc)" --out "$out/data.jsonl"
ls -l "$out/data.jsonl" | awk '{printf "dataset: %.0f MB\n", $5 / 1e6}'
for k in 1 2 5 20; do ./build/drtriton synth --count-structures --difficulty "$k"; done
