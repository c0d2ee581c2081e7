"""Timings that other GPU work overlapped (timing_noisy, decided on a GPU by the runs' spread)
are timed once more, then flagged: a speed reward lowered by the spreads, no reused eager
timing. On the CPU the interpreter's timings are never called noisy, so this test makes the
judge see every timing as noisy, then none, in a process set up as a worker (as
test_verifier_memory.py does); then once more under quiet timing (timing.GpuLock's shared
holds), which must judge alike."""
import math
import os

import pytest

import as_worker

CASE = os.path.join(as_worker.ROOT, "tests", "eval", "candidates", "honest_relu_scale.py")

SCRIPT = r"""
out = []
for seed, noisy in ((1, True), (2, False)):
    judge._Judgement.timing_noisy = lambda self, stats: noisy
    ctx.requests += 1
    workdir = os.path.join(scratch, f"req-{seed}")
    os.makedirs(workdir)
    os.chdir(workdir)
    v = judge.judge(ctx, task, candidate, {**case.options, "compile": False, "seed": seed}, workdir)
    out.append({"passed": v["passed"], "reason": v["reason"], "flags": v["flags"],
                "attempts": v["checks"].get("timing_attempts"), "noisy": v["checks"].get("timing_noisy"),
                "speed": v["reward"]["speed"], "reference_timing": v["reference_timing"] is not None,
                "runs": v["timing_ms"]["candidate"]["runs"], "timing_ms": v["timing_ms"]})
# Quiet timing's shared holds, on the CPU too: the judge takes them around references and
# comparisons (nested ones among them), and a whole judgement neither deadlocks nor fails.
from drtriton.verifier import timing
for name in ("gpu.lock", "gpu.lock.timing_turnstile"):
    open(os.path.join(scratch, name), "w").close()
os.environ["DRTRITON_GPU_LOCK"] = os.path.join(scratch, "gpu.lock")
ctx.timer.lock = timing.GpuLock(0, quiet=True)
ctx.requests += 1
workdir = os.path.join(scratch, "req-quiet")
os.makedirs(workdir)
os.chdir(workdir)
v = judge.judge(ctx, task, candidate, {**case.options, "compile": False, "seed": 3}, workdir)
out.append({"passed": v["passed"], "reason": v["reason"], "shared_wait": v["seconds"].get("shared_wait")})
print(json.dumps(out))
"""


def test_noisy_timings_are_timed_again_then_flagged(tmp_path):
    noisy, quiet, shared = as_worker.run(SCRIPT, CASE, tmp_path)
    assert noisy["passed"] and quiet["passed"], (noisy, quiet)
    assert noisy["attempts"] == {"eager": 2, "candidate": 2}, noisy
    assert "timing_noisy" in noisy["flags"] and noisy["noisy"] == ["eager", "candidate"], noisy
    assert not noisy["reference_timing"], noisy
    # Noise never pays: the speed reward is lowered by each timing's spread.
    eager, cand = noisy["timing_ms"]["eager"], noisy["timing_ms"]["candidate"]
    expected = (math.log(eager["median"] / cand["median"]) - math.log1p(eager["iqr"] / eager["median"])
                - math.log1p(cand["iqr"] / cand["median"]))
    assert noisy["speed"] == pytest.approx(max(-2.0, min(2.0, expected))), noisy
    assert noisy["runs"] >= 1  # the second loop's runs, after the first's were dropped
    assert quiet["attempts"] is None and "timing_noisy" not in quiet["flags"], quiet
    assert quiet["speed"] is not None and quiet["reference_timing"], quiet
    assert shared["passed"] and shared["shared_wait"] is not None, shared
