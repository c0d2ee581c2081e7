"""BatchNorm and InstanceNorm with running statistics in a converted solution follow
self.training as the modules do: batch (or instance) statistics and the running buffers
updated in training mode (momentum, or momentum=None's cumulative average for BatchNorm),
the running statistics in eval mode. Each program (tests/python/programs/convert/
batch_norm_*.py, instance_norm_running.py) is converted and verified in both modes
(what `drtriton convert --verify [--eval-mode]` judges, all six in one batch of one verifier
service; the command itself runs once, on batch_norm_modes in eval mode), and its ModelNew is
run next to the reference: three training-mode forwards from one state leave the same
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


@pytest.fixture(scope="module")
def side_by_side(solutions):
    """{program: the run of SIDE_BY_SIDE next to its solution}, the runs one a core."""
    return converted.side_by_side_all(SIDE_BY_SIDE, solutions)


@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_running_buffers_match_pytorch(side_by_side, program):
    converted.check_side_by_side(side_by_side[program])


@pytest.fixture(scope="module")
def verdicts(solutions):
    """{(program, eval_mode): the verdict on its solution}: what `drtriton convert --verify
    [--eval-mode]` judges (the same solution, options device and eval_mode), every program in
    both modes in one batch of one service, so the workers start once."""
    keys = [(program, eval_mode) for program in PROGRAMS for eval_mode in (False, True)]
    items = [{"task": open(program).read(), "candidate": open(solutions[program]).read(),
              "options": {"device": "cpu", "eval_mode": eval_mode, "compile": False}} for program, eval_mode in keys]
    with converted.verifier_service("cpu") as service:
        return dict(zip(keys, service.post("/verify_batch", {"items": items})["verdicts"]))


@pytest.mark.parametrize("eval_mode", [False, True], ids=["train", "eval"])
@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_verified_in_both_modes(verdicts, program, eval_mode):
    verdict = verdicts[program, eval_mode]
    assert verdict["passed"], verdict["reason"]
    assert verdict["mode"]["judged"] == ("eval" if eval_mode else "train")
    assert verdict["checks"]["buffers_differ"] == []


def test_convert_verify_prints_the_verdict(tmp_path):
    """`drtriton convert --verify --eval-mode --json` itself (the path test_verified_in_both_modes
    stands for, judged here on one program): the verdict on stdout, exit status 0."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    r = run("convert", PROGRAMS[0], "--verify", "--device", "cpu", "--json",
            "-o", str(tmp_path / "solution.py"), "--eval-mode")
    assert r.stdout.strip().startswith("{"), r.stderr[-3000:]
    verdict = json.loads(r.stdout)
    assert verdict["passed"] and r.returncode == 0, verdict["reason"]
    assert verdict["mode"]["judged"] == "eval"
    assert verdict["checks"]["buffers_differ"] == []
    # convert asks for torch.compile's timing unless told not to; on a slow machine the
    # verifier may give up on inductor (its CPU deadline), which still shows it was asked.
    timing = verdict["timing_ms"]
    assert timing["compile"] is not None or "took over" in timing.get("compile_note", ""), timing
