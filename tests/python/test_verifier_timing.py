"""Timings that other GPU work overlapped (timing_noisy, decided on a GPU by the runs' spread)
are timed once more, then flagged: no speed reward, no reused eager timing. On the CPU the
interpreter's timings are never called noisy, so this test makes the judge see every timing
as noisy, then none, in a process set up as a worker (as test_verifier_memory.py does)."""
import os

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
                "runs": v["timing_ms"]["candidate"]["runs"]})
print(json.dumps(out))
"""


def test_noisy_timings_are_timed_again_then_flagged(tmp_path):
    noisy, quiet = as_worker.run(SCRIPT, CASE, tmp_path)
    assert noisy["passed"] and quiet["passed"], (noisy, quiet)
    assert noisy["attempts"] == {"eager": 2, "candidate": 2}, noisy
    assert "timing_noisy" in noisy["flags"] and noisy["noisy"] == ["eager", "candidate"], noisy
    assert noisy["speed"] is None and not noisy["reference_timing"], noisy
    assert noisy["runs"] >= 1  # the second loop's runs, after the first's were dropped
    assert quiet["attempts"] is None and "timing_noisy" not in quiet["flags"], quiet
    assert quiet["speed"] is not None and quiet["reference_timing"], quiet
