#!/usr/bin/env bash
# Kernel by kernel, where the GPU time of eager, torch.compile and drtriton's solutions goes
# (bench/kernel_profile.py), for each PROGRAM converted once per layout (convolutions in NCHW
# and channels-last; PROFILE_KNOBS="layout=nchw layout=channels_last" by default, one
# solution per word, a word's settings joined by commas: "depthwise=library,layout=channels_last").
# Builds drtriton (scripts/gpu_build.sh, carry .deps); writes
# $OUT/kernel_profile.md and prints it. PROFILE_COMPILE=0 leaves torch.compile out (seconds
# a program rather than an Inductor compile each), PROFILE_TOP=N lists N kernels a run,
# PROFILE_INDUCTOR_CODE=1 also packs the Triton source Inductor wrote into
# $OUT/inductor_kernels.tgz (to read what torch.compile does where it wins), and
# PROFILE_BASELINE=DIR profiles DIR/NAME.py first where it exists (a solution an earlier commit
# wrote: the table's ratios are then against it). PROFILE_SYNTH="d20/d20_p000003 ..." adds programs
# of the synthetic bench suites (`drtriton synth --suite DIR --size bench --count 5
# --numeric-check`, the suites of scripts/gpu_search.sh: the same programs on every machine).
#   there: bash scripts/gpu_profile.sh tests/programs/real/fused/conv2d_bn_relu.py [...]
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || [ -n "${PROFILE_SYNTH:-}" ] || { echo "usage: scripts/gpu_profile.sh PROGRAM.py..."; exit 2; }
source scripts/gpu_build.sh
[ $build_ok -eq 0 ] || { echo "build failed: see $OUT/build.log"; exit 1; }
work=$(mktemp -d)
if [ -n "${PROFILE_SYNTH:-}" ]; then
  build/drtriton synth --suite "$work/suite" --size bench --count 5 --numeric-check > /dev/null 2>&1
  for p in $PROFILE_SYNTH; do set -- "$@" "$work/suite/$p.py"; done
fi
pairs=()
for program in "$@"; do
  name=$(basename "$program" .py)
  solutions=()
  if [ -n "${PROFILE_BASELINE:-}" ] && [ -f "$PROFILE_BASELINE/$name.py" ]; then
    cp "$PROFILE_BASELINE/$name.py" "$work/$name.baseline.py" && solutions+=("$work/$name.baseline.py")
  fi
  for knob in ${PROFILE_KNOBS:-layout=nchw layout=channels_last}; do
    solution="$work/$name.${knob//[=\/,]/_}.py"
    knob_flags=()
    for setting in ${knob//,/ }; do knob_flags+=(--knob "$setting"); done
    if ./build/drtriton convert "$program" --no-verify "${knob_flags[@]}" -o "$solution" > /dev/null 2> "$solution.err"; then
      solutions+=("$solution")
    else
      echo "$name, $knob: $(tail -1 "$solution.err")"
    fi
  done
  [ ${#solutions[@]} -gt 0 ] && pairs+=("$program" "$(IFS=,; echo "${solutions[*]}")")
done
compile_flag=$([ "${PROFILE_COMPILE:-1}" = 0 ] && echo --no-compile)
TORCHINDUCTOR_CACHE_DIR="$work/inductor" \
  python3 bench/kernel_profile.py "${pairs[@]}" --top "${PROFILE_TOP:-8}" $compile_flag --out "$OUT/kernel_profile.md" \
  > "$OUT/kernel_profile.log" 2>&1
if [ "${PROFILE_INDUCTOR_CODE:-0}" = 1 ] && [ -d "$work/inductor" ]; then
  (cd "$work/inductor" && grep -rl --include='*.py' '@triton.jit' . | tar czf "$OUT/inductor_kernels.tgz" -T -)
fi
cat "$OUT/kernel_profile.md" 2> /dev/null || tail -20 "$OUT/kernel_profile.log"
