"""BatchNorm and InstanceNorm with running statistics in a converted solution follow
self.training as the modules do: batch (or instance) statistics and the running buffers
updated in training mode (momentum, or momentum=None's cumulative average for BatchNorm),
the running statistics in eval mode. Each program (tests/python/programs/convert/
batch_norm_*.py, instance_norm_running.py) is converted and verified in both modes
(`drtriton convert --verify [--eval-mode]`, Triton's interpreter), and its ModelNew is run
next to the reference: three training-mode forwards from one state leave the same
running_mean, running_var and num_batches_tracked, and after .eval() the outputs agree.
"""
import json
import os
import subprocess

import pytest

import converted

ROOT, BIN = converted.ROOT, converted.BIN
PROGRAMS = [os.path.join(ROOT, "tests", "python", "programs", "convert", f"{name}.py")
            for name in ("batch_norm_modes", "batch_norm_cumulative", "instance_norm_running")]
IDS = [os.path.basename(p)[:-3] for p in PROGRAMS]

# Runs after converted.PRELUDE (task, solution, torch), in a fresh interpreter.
SIDE_BY_SIDE = r"""
torch.manual_seed(0)
model = task.Model(*task.get_init_inputs())
new = solution.ModelNew(*task.get_init_inputs())
new.load_state_dict(model.state_dict())
initial = [b.clone() for b in model.buffers()]
with torch.no_grad():
    for step in range(3):
        x = [t * (1 + step) + step for t in task.get_inputs()]
        torch.testing.assert_close(new(*x), model(*x), rtol=1e-4, atol=1e-4)
    for (name, ours), (_, theirs) in zip(new.named_buffers(), model.named_buffers()):
        if theirs.is_floating_point():
            torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6, msg=name)
        else:
            assert torch.equal(ours, theirs), (name, ours, theirs)
    assert any(not torch.equal(a, b) for a, b in zip(initial, model.buffers())), "no buffer moved"
    before = [b.clone() for b in new.buffers()]
    model.eval(), new.eval()
    x = task.get_inputs()
    torch.testing.assert_close(new(*x), model(*x), rtol=1e-4, atol=1e-4)
    assert all(torch.equal(a, b) for a, b in zip(before, new.buffers())), "eval mode changed a buffer"
print("ok")
"""


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def solutions(tmp_path_factory):
    """{program path: its solution's path}."""
    return converted.convert(PROGRAMS, tmp_path_factory.mktemp("batch_norm"))


@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_running_buffers_match_pytorch(solutions, program):
    converted.side_by_side(SIDE_BY_SIDE, program, solutions[program])


@pytest.mark.parametrize("eval_mode", [False, True], ids=["train", "eval"])
@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_verified_in_both_modes(tmp_path, program, eval_mode):
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    mode = ["--eval-mode"] if eval_mode else []
    r = run("convert", program, "--verify", "--device", "cpu", "--json",
            "-o", str(tmp_path / "solution.py"), *mode)
    assert r.stdout.strip().startswith("{"), r.stderr[-3000:]
    verdict = json.loads(r.stdout)
    assert verdict["passed"] and r.returncode == 0, verdict["reason"]
    assert verdict["mode"]["judged"] == ("eval" if eval_mode else "train")
    assert verdict["checks"]["buffers_differ"] == []
