#!/usr/bin/env bash
# The supervised warm-up end to end on the device machine, within one 10-minute call:
#   1. build (scripts/gpu_build.sh, carry .deps),
#   2. `drtriton pairs` on CUDA (fresh seeds; every pair verified), in chunks for
#      PAIRS_MINUTES, unless PAIRS names an existing file (.jsonl or .jsonl.gz; carry it);
#      TRAIN_MINUTES=0 stops there (a call of pairs only),
#   3. `python -m drtriton.learn.sft --model small` for TRAIN_MINUTES,
#   4. `python -m drtriton.learn.evaluate` on the held-out suites (`drtriton synth --suite`,
#      fixed seeds, never trained on): EVAL_PROGRAMS programs of difficulty 1, 2 and 5 at
#      each of EVAL_SIZES (default: tiny, the pairs' size, and bench), and the repo's
#      hand-written programs, SAMPLES samples each (the first greedy); all are sampled in
#      one batch, whose time is set by the longest answer, not by the number of prompts,
# then prints one table. $OUT gets pairs.jsonl.gz, ckpt.tar (the save_pretrained files of the
# lowest held-out loss, with metrics.jsonl and loss.png), eval.json and sft.log.
# Measured in a first smoke run (docs/results/sft_h200.md): `small` trains at 12 steps/s at
# batch 16; 25 of 213 pairs were over 3072 tokens.
#   there: bash scripts/gpu_sft.sh        (carry .deps)
#          PAIRS_MINUTES=8 TRAIN_MINUTES=0 bash scripts/gpu_sft.sh        (pairs only)
#          PAIRS=.data/pairs.jsonl.gz TRAIN_MINUTES=5 bash scripts/gpu_sft.sh   (carry .deps, .data)
#          PAIRS=... PAIRS_MINUTES_MORE=3 PAIRS_SEED=3 ...   (add chunks from seed 3 on)
#          PAIRS_VARIANTS=1 ...   (one solution per program: more programs per minute)
#          EVAL=0 ...   (no held-out evaluation)
#          GPUS=2 PAIRS=... bash scripts/gpu_sft.sh   (kind nvidia-h200-x2: DDP over both)
set -uo pipefail
cd "$(dirname "$0")/.."
START_S=$(date +%s)
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }

PAIRS_CHUNK=${PAIRS_CHUNK:-200}
PAIRS_MINUTES=${PAIRS_MINUTES:-3}
TRAIN_MINUTES=${TRAIN_MINUTES:-3}
EVAL_PROGRAMS=${EVAL_PROGRAMS:-20}
SAMPLES=${SAMPLES:-8}
WORK=/tmp/drtriton-sft
mkdir -p "$WORK"

# PAIRS: pairs made before (carried in); new chunks are added for PAIRS_MINUTES_MORE,
# from seed PAIRS_SEED on (set it past the chunks PAIRS already holds).
: > "$WORK/pairs.jsonl"
if [ -n "${PAIRS:-}" ]; then
  case "$PAIRS" in *.gz) gunzip -c "$PAIRS" ;; *) cat "$PAIRS" ;; esac > "$WORK/pairs.jsonl"
  PAIRS_MINUTES=${PAIRS_MINUTES_MORE:-0}
fi
if [ "$PAIRS_MINUTES" != 0 ]; then
  # Chunks of PAIRS_CHUNK programs, each its own seed, until PAIRS_MINUTES are spent: a
  # chunk that would not finish is never started, and every finished chunk counts.
  echo "== pairs: chunks of $PAIRS_CHUNK programs of difficulty 1:3 for $PAIRS_MINUTES min"
  # PAIRS_SIZES: the size presets the chunks cycle through, so that the programs' constants
  # (channels, features) span what the held-out suites use.
  read -r -a sizes <<< "${PAIRS_SIZES:-tiny small bench}"
  start=$(date +%s) chunk_s=0 seed=${PAIRS_SEED:-1}
  while [ $(( $(date +%s) - start + chunk_s )) -lt $((PAIRS_MINUTES * 60)) ]; do
    t0=$(date +%s)
    size=${sizes[$(( (seed - ${PAIRS_SEED:-1}) % ${#sizes[@]} ))]}
    build/drtriton pairs --count "$PAIRS_CHUNK" --difficulty 1:3 --variants "${PAIRS_VARIANTS:-2}" --device cuda \
      --size "$size" \
      --workers 12 --timeout 60 --seed "$seed" --out "$WORK/chunk.jsonl" > "$OUT/pairs_$seed.log" 2>&1 \
      && sed "s/\"id\":\"p/\"id\":\"s${seed}_p/" "$WORK/chunk.jsonl" >> "$WORK/pairs.jsonl"
    grep -E "accepted|pairs per minute" "$OUT/pairs_$seed.log" | head -2
    chunk_s=$(( $(date +%s) - t0 )) seed=$((seed + 1))
  done
  tar -cf "$OUT/pairs_logs.tar" -C "$OUT" $(cd "$OUT" && ls pairs_*.log) && rm -f "$OUT"/pairs_*.log
fi
[ -s "$WORK/pairs.jsonl" ] || { echo "no pairs"; exit 1; }
# New pairs go back; pairs that were carried in are not sent back again.
[ "$PAIRS_MINUTES" = 0 ] || gzip -k -c "$WORK/pairs.jsonl" > "$OUT/pairs.jsonl.gz"
echo "pairs: $(wc -l < "$WORK/pairs.jsonl")"
[ "$TRAIN_MINUTES" != 0 ] || exit 0  # pairs only: carry pairs.jsonl.gz to the next call

# DDP_STEPS=N: first a short data-parallel run of two processes under torchrun, on this
# machine's GPUs (two processes share one GPU over gloo where there is one), to show that
# the trainer runs under DDP; its model is not kept.
if [ "${DDP_STEPS:-0}" -gt 0 ]; then
  echo "== sft under torchrun: 2 processes, $DDP_STEPS steps"
  python3 -m torch.distributed.run --standalone --nproc_per_node 2 -m drtriton.learn.sft --model small \
    --data "$WORK/pairs.jsonl" --out "$WORK/ddp" --max_len 4096 --batch_size 8 \
    --max_steps "$DDP_STEPS" --eval_every "$DDP_STEPS" --save_every "$DDP_STEPS" \
    > "$OUT/sft_ddp.log" 2>&1
  echo "torchrun exit $?"; grep -E "^sft:" "$OUT/sft_ddp.log"
  tail -3 "$WORK/ddp/metrics.jsonl"
fi
# GPUS=2 (on a two-GPU machine): the training itself data-parallel under torchrun (DDP),
# batch_size examples per process.
GPUS=${GPUS:-1}
echo "== sft: small model from scratch, $TRAIN_MINUTES min, $GPUS GPU(s)"
if [ "$GPUS" -gt 1 ]; then
  launch=(python3 -m torch.distributed.run --standalone --nproc_per_node "$GPUS" -m drtriton.learn.sft)
else
  launch=(python3 -m drtriton.learn.sft)
fi
"${launch[@]}" --model small --data "$WORK/pairs.jsonl" --out "$WORK/ckpt" \
  --max_len 4096 --batch_size 16 --max_steps 100000 --max_minutes "$TRAIN_MINUTES" \
  --warmup_steps 100 --eval_every 100 --save_every 100000 --dropout "${DROPOUT:-0.1}" \
  > "$OUT/sft.log" 2>&1
grep -v "it/s\]" "$OUT/sft.log" | tail -8
# The model of the lowest held-out loss is the one evaluated and sent back (44 MB), with the
# metrics and plot; not the last model nor the optimizer state (twice the model).
MODEL="$WORK/ckpt/best"
[ -d "$MODEL" ] || MODEL="$WORK/ckpt"
echo "evaluated model: $MODEL $(cat "$MODEL/best.json" 2>/dev/null)"
rm -rf "$WORK/ship" && mkdir -p "$WORK/ship/ckpt"
cp "$MODEL"/*.json "$MODEL"/*.safetensors "$WORK/ckpt/metrics.jsonl" "$WORK/ckpt/loss.png" \
  "$WORK/ship/ckpt/"
# Files come back from the device machine at up to 16 MiB each: the tar goes in parts
# (here: cat ckpt.tar.part* | tar -x).
tar -cf "$WORK/ckpt.tar" -C "$WORK/ship" ckpt && tar -tvf "$WORK/ckpt.tar"
split -b 15M -d "$WORK/ckpt.tar" "$OUT/ckpt.tar.part"

[ "${EVAL:-1}" = 1 ] || exit 0  # EVAL=0: no evaluation (the call goes on to RL, say)
source scripts/gpu_eval.sh  # the held-out suites, MODEL evaluated
