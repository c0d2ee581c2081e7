#!/usr/bin/env bash
# CSP-DAG speed on this machine, both distributions in one run: 100,000 programs of
# difficulty 1 to 5 with --dist real (the default; target: at least 1,600 programs/s on 2
# cores) and with --dist uniform (target: under 60 s; the paper's generator took about
# 1.5 h for 100k on 32 cores), then the exact count of structures at difficulty 1, 2, 5, 20.
#   bash bench/synth_speed.sh [BIN]     (default ./build/drtriton)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./build/drtriton}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for dist in real uniform; do
  "$bin" synth --dist "$dist" --count 100000 --difficulty 1:5 --seed 1 --jobs "$(nproc)" \
    --out "$out/$dist.jsonl" 2>&1 | sed "s/^/$dist: /"
  ls -l "$out/$dist.jsonl" | awk -v d="$dist" '{printf "%s: dataset %.0f MB\n", d, $5 / 1e6}'
done
for k in 1 2 5 20; do "$bin" synth --count-structures --difficulty "$k"; done
