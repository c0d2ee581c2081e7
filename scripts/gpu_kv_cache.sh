# Sourced by the GPU scripts that sample from a checkpoint: sets KV_CACHE for the sampler.
# KV_CACHE=dynamic or static is kept; auto (the default) times both on $1 (a checkpoint)
# with bench/sample_speed.py (about 2 minutes; $OUT/sample_speed.txt) and takes static
# (compiled decoding) when it samples at least 1.2 times as fast.
KV_CACHE=${KV_CACHE:-auto}
if [ "$KV_CACHE" = auto ]; then
  echo "== sampling speed, dynamic against static KV cache"
  build/drtriton synth --suite "$WORK/speed" --size small --count 8 > /dev/null 2>&1
  python3 bench/sample_speed.py --ckpt "$1" --suite "$WORK/speed/suite.jsonl" --programs 16 \
    --samples 4 --max-new-tokens 384 2>&1 | grep -v "Loading weights" | tail -5 | tee "$OUT/sample_speed.txt"
  ratio=$(sed -n 's/^static \/ dynamic sampling speed: \([0-9.]*\)x.*/\1/p' "$OUT/sample_speed.txt")
  KV_CACHE=dynamic
  awk -v r="${ratio:-0}" 'BEGIN { exit !(r >= 1.2) }' && KV_CACHE=static
  echo "kv cache: $KV_CACHE"
fi
