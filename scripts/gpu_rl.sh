#!/usr/bin/env bash
# DRPO against GRPO from one warm-up checkpoint, on the device machine, within one call:
#   1. build (scripts/gpu_build.sh, carry .deps),
#   2. the twin runs side by side on the one GPU, same seed, same budget (RL_MINUTES each),
#      each with its own `drtriton serve` (WORKERS workers); they differ only in --algo,
#   3. the warm-up and both results evaluated on the held-out suites of difficulty 1 and 2
#      (EVAL_PROGRAMS programs each, SAMPLES samples, the first greedy) in one pass each,
# then prints one table. $OUT gets rl_drpo.tar and rl_grpo.tar (metrics.jsonl, metrics.png,
# rl_config.json, the log; not the weights) and eval_*.json. EVAL=0 gives the whole call to
# RL and sends both policies back instead (bf16, policies.tar.partNN), for an evaluation
# in a call of its own.
#   here:  carry the warm-up checkpoint (a save_pretrained directory, at most 48 MB) in .data/
#   there: CKPT=.data/ckpt bash scripts/gpu_rl.sh        (carry .deps, .data)
set -uo pipefail
cd "$(dirname "$0")/.."
START_S=$(date +%s)
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }

CKPT=${CKPT:?CKPT= names the warm-up checkpoint directory}
RL_MINUTES=${RL_MINUTES:-4}
PROMPTS=${PROMPTS:-8}
# The size preset of the training prompts and of the held-out suites.
RL_SIZE=${RL_SIZE:-small}
EVAL_PROGRAMS=${EVAL_PROGRAMS:-20}
SAMPLES=${SAMPLES:-4}
WORKERS=${WORKERS:-7}
SEED=${SEED:-0}
WORK=/tmp/drtriton-rl
mkdir -p "$WORK/drpo" "$WORK/grpo"

source scripts/gpu_kv_cache.sh "$CKPT"  # sets KV_CACHE (auto: the faster of two)

echo "== rl: drpo and grpo twins, $RL_MINUTES min each, side by side"
for algo in drpo grpo; do
  python3 -m drtriton.learn.rl --model "$CKPT" --out "$WORK/$algo" --algo "$algo" \
    --levels 1,2 --promote_at 0.5 --group 8 --prompts "$PROMPTS" --size "$RL_SIZE" --lr 1e-5 \
    --max_new_tokens 1536 --temperature 1.0 --eval_every 5 --eval_programs 16 \
    --max_steps 100000 --max_minutes "$RL_MINUTES" --workers "$WORKERS" --seed "$SEED" \
    --kv_cache "$KV_CACHE" --binary build/drtriton > "$WORK/$algo/rl.log" 2>&1 &
done
wait
for algo in drpo grpo; do
  echo "-- $algo"; grep "^rl: " "$WORK/$algo/rl.log" | tail -4
  tar -cf "$OUT/rl_$algo.tar" -C "$WORK/$algo" metrics.jsonl metrics.png rl_config.json rl.log
done
if [ "${EVAL:-1}" = 0 ]; then
  # The whole call went to RL: both policies go back for an evaluation call of their own,
  # in bf16 (20 MB each) and in 15 MB parts (files come back at up to 16 MiB each):
  # here, cat policies.tar.part* | tar -x.
  python3 - "$WORK" <<'PY'
import sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
work = sys.argv[1]
for algo in ("drpo", "grpo"):
    model = AutoModelForCausalLM.from_pretrained(f"{work}/{algo}", torch_dtype=torch.bfloat16)
    model.save_pretrained(f"{work}/ship/{algo}")
    AutoTokenizer.from_pretrained(f"{work}/{algo}").save_pretrained(f"{work}/ship/{algo}")
PY
  tar -cf "$WORK/policies.tar" -C "$WORK/ship" drpo grpo && split -b 15M -d "$WORK/policies.tar" "$OUT/policies.tar.part"
  exit 0
fi

echo "== held-out suites"
build/drtriton synth --suite "$WORK/suite" --size "$RL_SIZE" --count "$EVAL_PROGRAMS" --numeric-check > /dev/null 2>&1
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
rows = [json.loads(line) for line in open(f"{work}/suite/suite.jsonl")]
for d in (1, 2):
    with open(f"{work}/d{d}.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows if r["difficulty"] == d)
PY
for name in warmup drpo grpo; do
  model=$CKPT; [ "$name" = warmup ] || model=$WORK/$name
  # The call may run 10 minutes: each evaluation gets a third of what is left of 570 s.
  left_s=$(( 570 - ($(date +%s) - START_S) ))
  case $name in warmup) eval_s=$((left_s / 3)) ;; drpo) eval_s=$((left_s / 2)) ;; *) eval_s=$left_s ;; esac
  echo "-- $name ($eval_s s)"
  timeout "$eval_s" python3 -m drtriton.learn.evaluate --ckpt "$model" --samples "$SAMPLES" --binary build/drtriton \
    --kv-cache "$KV_CACHE" --device cuda --workers 14 --batch-size 512 --out "$OUT/eval_$name.json" \
    --suite "$WORK/d1.jsonl" --suite "$WORK/d2.jsonl" 2>&1 | grep -v "^drtriton serve" | tail -5
done
