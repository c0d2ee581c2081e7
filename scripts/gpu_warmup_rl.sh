#!/usr/bin/env bash
# A warm-up and the start of RL in one 10-minute call, for a session whose device time is
# short and whose checkout holds no checkpoint (.data/ does not travel between sessions):
#   1. scripts/gpu_sft.sh on PAIRS (default data/warmup_pairs.jsonl.gz) for TRAIN_MINUTES,
#      no evaluation; $OUT gets ckpt.tar.part* (fp32, the lowest held-out loss),
#   2. its bf16 copy in .data/ckpt_warmup/ckpt_bf16 (the same bytes as
#      `python -m drtriton.learn.model` makes here from the fp32 files),
#   3. scripts/gpu_rl.sh from that copy (CKPT is set here; every other setting of gpu_rl.sh
#      applies) until the call's limit CALL_S, with LoRA so the runs' state comes back.
# The machine stays warm about 30 s after the call: then, at once,
#   CKPT=.data/ckpt_warmup/ckpt_bf16 LORA_R=16 RESUME=1 ... bash scripts/gpu_rl.sh
# continues the runs (they live in the machine's /tmp, the checkpoint in .data/).
#   there: SEEDS="0 1" PROMPTS=16 PROMOTE_AT=0.8 LR=3e-4 bash scripts/gpu_warmup_rl.sh  (carry .deps)
set -uo pipefail
cd "$(dirname "$0")/.."
START_S=$(date +%s)
CALL_S=${CALL_S:-590}
PAIRS=${PAIRS:-data/warmup_pairs.jsonl.gz} TRAIN_MINUTES=${TRAIN_MINUTES:-3.5} EVAL=0 \
  bash scripts/gpu_sft.sh 2>&1 | grep -v "it/s\]" | tail -12
model=/tmp/drtriton-sft/ckpt/best
[ -d "$model" ] || model=/tmp/drtriton-sft/ckpt
[ -d "$model" ] || { echo "no warm-up checkpoint: see sft.log"; exit 1; }
PYTHONPATH=python python3 -m drtriton.learn.model "$model" .data/ckpt_warmup/ckpt_bf16 || exit 1
left=$(( CALL_S - ($(date +%s) - START_S) ))
CKPT=.data/ckpt_warmup/ckpt_bf16 LORA_R=${LORA_R:-16} EVAL=${EVAL:-0} CALL_S=$left \
  RL_MINUTES=${RL_MINUTES:-$(( left / 60 ))} bash scripts/gpu_rl.sh
