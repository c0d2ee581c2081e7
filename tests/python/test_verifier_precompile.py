"""Compiling a candidate's kernels ahead (judge.py `precompile`, on CUDA unless DRTRITON_PRECOMPILE=0):
one dry forward per input shape whose launches only compile. Its compile half is Triton's
(AsyncCompileMode) and runs only on a GPU; what CPU judgements can show is the rest: dry
forwards change no verdict, leave the judged model's state as it was (it is loaded again
after them) and count how many shapes they covered, and a cheat gains nothing from the
extra forward (its torch ops and module state are held to the rules; it sees fresh values,
never a checked set's). The judge is made to precompile on the CPU, where Triton's interpreter
ignores a launch made as a warm-up, so the dry launches run nothing there either."""
import os

import pytest

import as_worker

CANDIDATES = os.path.join(as_worker.ROOT, "tests", "eval", "candidates")

SCRIPT = r"""
from drtriton.verifier import launch_hook
judge._Judgement.precompiles = lambda self: True
# Dry launches run nothing: the interpreter's warm-up returns at once.
import triton, triton.language as tl
@triton.jit
def _fill(x_ptr):
    tl.store(x_ptr + tl.arange(0, 4), 1.0)
x = torch.zeros(4)
with launch_hook.counting(dry=True) as counts:
    _fill[(1,)](x)
dry = {"launches": sum(counts.values()), "ran": bool(x.any())}
ctx.requests += 1
workdir = os.path.join(scratch, "req-1")
os.makedirs(workdir)
os.chdir(workdir)
v = judge.judge(ctx, task, candidate, {**case.options, "compile": False, "seed": 5}, workdir)
print(json.dumps({"passed": v["passed"], "stage": v["failed_stage"], "reason": v["reason"],
                  "shapes": v["checks"].get("precompiled_shapes"),
                  "varied": sorted(v["checks"].get("shape_variation") or {}), "dry": dry}))
"""


@pytest.mark.parametrize("name, stage", [
    ("honest_relu_scale.py", None),
    ("honest_batchnorm_train.py", None),  # running statistics: the state is loaded again
    ("cheat_calls_torch_op.py", "compile"),  # a torch op in the dry forward already
    ("cheat_cache_by_shape.py", "compile"),  # module state assigned in the dry forward
    ("cheat_detects_timed_runs.py", "static"),
])
def test_dry_forwards_change_no_verdict(tmp_path, name, stage):
    out = as_worker.run(SCRIPT, os.path.join(CANDIDATES, name), tmp_path)
    assert out["dry"] == {"launches": 1, "ran": False}, out
    assert out["passed"] is (stage is None) and out["stage"] == stage, out
    if stage is None:  # the sets' shape, then each varied size
        assert out["shapes"] == 1 + len(out["varied"]), out
    elif stage == "compile":
        assert "in a forward compiling the kernels ahead" in out["reason"], out
