#!/usr/bin/env bash
# The held-out evaluation of a checkpoint on the device machine: the synthetic suites of
# difficulty 1, 2 and 5 (`drtriton synth --suite`, fixed seeds, never trained on), at each of
# EVAL_SIZES (default: tiny and bench), EVAL_PROGRAMS programs each, and the repo's
# hand-written programs; SAMPLES samples per program (the first greedy), all sampled in one
# batch, judged by the verifier; one table. $OUT gets eval.json.
#   there:  CKPT=.data/ckpt SAMPLES=8 bash scripts/gpu_eval.sh   (carry .deps and the checkpoint)
# gpu_sft.sh sources it after training, with MODEL, WORK and START_S set. Standalone, it
# also picks the sampler's KV cache (scripts/gpu_kv_cache.sh; KV_CACHE=dynamic skips that).
if [ -z "${MODEL:-}" ]; then
  set -uo pipefail
  cd "$(dirname "$0")/.."
  START_S=$(date +%s)
  source scripts/gpu_build.sh
  [ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
  MODEL=${CKPT:?CKPT= names the checkpoint directory}
  WORK=/tmp/drtriton-eval
  mkdir -p "$WORK"
  EVAL_PROGRAMS=${EVAL_PROGRAMS:-16}
  SAMPLES=${SAMPLES:-8}
  source scripts/gpu_kv_cache.sh "$MODEL"
fi

echo "== held-out suites"
# The suites at the size of the training programs (EVAL_SIZES, default tiny: constants
# like those the model saw) and at bench sizes (channels and features it may never have
# seen: how far copying the program's constants transfers).
EVAL_SIZES=${EVAL_SIZES:-tiny bench}
for size in $EVAL_SIZES; do
  build/drtriton synth --suite "$WORK/suite_$size" --size "$size" --count "$EVAL_PROGRAMS" \
    --numeric-check > /dev/null 2>&1
done
# The synthetic suites of difficulty 1, 2 and 5 per size, and the hand-written programs of the
# repo that the compiler solves (examples/, tests/python/programs/): one JSONL each.
python3 - "$WORK" $EVAL_SIZES <<'PY'
import glob, json, os, sys
work = sys.argv[1]
for size in sys.argv[2:]:
    rows = [json.loads(line) for line in open(f"{work}/suite_{size}/suite.jsonl")]
    for d in (1, 2, 5):
        with open(f"{work}/d{d}_{size}.jsonl", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows if r["difficulty"] == d)
real = sorted(glob.glob("examples/*.py") + glob.glob("tests/python/programs/convert/*.py"))
real += [f"tests/python/programs/{n}.py" for n in ("conv_bn_relu", "gpu_sized", "linear_gelu")]
with open(f"{work}/real.jsonl", "w") as f:
    for path in real:
        f.write(json.dumps({"id": path, "pytorch": open(path).read()}) + "\n")
PY
# The call may run 10 minutes: the evaluation gets what is left of 570 s from the start.
eval_s=$(( 570 - ($(date +%s) - START_S) ))
echo "held-out suites written at $(( $(date +%s) - START_S )) s; evaluation gets $eval_s s"
timeout "$eval_s" python3 -m drtriton.learn.evaluate --ckpt "$MODEL" --samples "$SAMPLES" --binary build/drtriton \
  --kv-cache "${KV_CACHE:-dynamic}" --max-new-tokens "${MAX_NEW_TOKENS:-2048}" --device cuda --workers 14 --batch-size 512 --out "$OUT/eval.json" \
  $(for size in $EVAL_SIZES; do for d in 1 2 5; do echo --suite "$WORK/d${d}_$size.jsonl"; done; done) \
  --suite "$WORK/real.jsonl" 2>&1 | grep -v "^drtriton serve" | tail -12
