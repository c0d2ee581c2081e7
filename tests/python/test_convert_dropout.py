"""Dropout in a converted solution follows self.training as nn.Dropout does (issue 14): in
training mode each element is zeroed with probability p and the others scaled by 1/(1-p),
from a Philox stream whose seed the forward draws from PyTorch's generator on every call; in
eval mode the identity, with no draw. The variants: Dropout2d and Dropout3d zero whole
channels (one number per (sample, channel)), AlphaDropout sets a dropped element to
a * alpha' + b and a kept one to a * x + b, and in-place dropouts are the same ops. Each
program (tests/python/programs/convert/: a conv + BatchNorm + ReLU + dropout block, an MLP
with LayerNorm and two dropouts, a conv + Dropout2d, Dropout3d on a volume, SELU +
AlphaDropout, in-place dropouts) is converted and verified in both modes (the verifier
judges training mode by statistics), and its ModelNew is run next to the reference.
"""
import os
import subprocess

import pytest

import converted

ROOT, BIN = converted.ROOT, converted.BIN
PROGRAMS = [os.path.join(ROOT, "tests", "python", "programs", "convert", f"{name}.py")
            for name in ("dropout_conv_block", "dropout_mlp", "dropout2d_conv", "dropout3d_volume",
                         "alpha_dropout_selu", "dropout_inplace")]
IDS = [os.path.basename(p)[:-3] for p in PROGRAMS]

# Runs after converted.PRELUDE (task, solution, torch), in a fresh interpreter. Where a
# program's `dropout` is its last op (and its only one), the reference with that dropout's p
# set to 0 gives the values before it, so each element of a training-mode output is 0 or
# that value / (1-p); for Dropout2d/3d each (sample, channel) is all one or the other; for
# AlphaDropout each element is a * value + b or the dropped constant. The share dropped is
# p, within 5 standard deviations.
SIDE_BY_SIDE = r"""
torch.manual_seed(0)
model = task.Model(*task.get_init_inputs())
new = solution.ModelNew(*task.get_init_inputs())
new.load_state_dict(model.state_dict())
state = {k: v.clone() for k, v in model.state_dict().items()}
x = task.get_inputs()

def run(module, seed):
    module.load_state_dict(state)
    torch.manual_seed(seed)
    with torch.no_grad():
        return module(*x)

a, b, c = run(new, 1), run(new, 1), run(new, 2)
assert torch.equal(a, b), "torch.manual_seed does not make a training-mode run reproducible"
assert not torch.equal(a, c), "two seeds gave the same training-mode output"
if hasattr(model, "dropout"):
    p = model.dropout.p
    model.dropout.p = 0.0
    kept = run(model, 1)
    model.dropout.p = p
    if isinstance(model.dropout, torch.nn.AlphaDropout):
        alpha = 1.7580993408473766
        scale = ((1 - p) * (1 + p * alpha ** 2)) ** -0.5
        shift, gone = alpha * scale * p, -alpha * scale * (1 - p)
        dropped = (a - gone).abs() < 1e-5
        torch.testing.assert_close(a[~dropped], kept[~dropped] * scale + shift, rtol=1e-4, atol=1e-5)
        n, rate = a.numel(), float(dropped.float().mean())
    elif isinstance(model.dropout, (torch.nn.Dropout2d, torch.nn.Dropout3d)):
        a, kept = a.flatten(2), kept.flatten(2)  # (sample, channel, the rest)
        live = (kept != 0).any(2)
        dropped = live & (a == 0).all(2)
        torch.testing.assert_close(a[live & ~dropped], kept[live & ~dropped] / (1 - p), rtol=1e-4, atol=1e-5)
        n, rate = int(live.sum()), float(dropped.sum() / live.sum())
    else:
        live = kept != 0
        dropped = live & (a == 0)
        torch.testing.assert_close(a[live & ~dropped], kept[live & ~dropped] / (1 - p), rtol=1e-4, atol=1e-5)
        n, rate = int(live.sum()), float(dropped.sum() / live.sum())
    assert abs(rate - p) < 5 * (p * (1 - p) / n) ** 0.5, (rate, p, n)
model.eval(), new.eval()
state = {k: v.clone() for k, v in model.state_dict().items()}
torch.testing.assert_close(run(new, 3), run(model, 3), rtol=1e-4, atol=1e-4)
torch.manual_seed(3)
with torch.no_grad():
    new(*x)
assert torch.equal(torch.get_rng_state(), torch.manual_seed(3).get_state()), "eval mode drew a seed"
print("ok")
"""


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def solutions(tmp_path_factory):
    """{program path: its solution's path}."""
    return converted.convert(PROGRAMS, tmp_path_factory.mktemp("dropout"))


@pytest.fixture(scope="module")
def side_by_side(solutions):
    """{program: the run of SIDE_BY_SIDE next to its solution}, the runs one a core."""
    return converted.side_by_side_all(SIDE_BY_SIDE, solutions)


@pytest.mark.parametrize("program", PROGRAMS, ids=IDS)
def test_drops_as_pytorch_does(side_by_side, program):
    converted.check_side_by_side(side_by_side[program])


def test_verified_in_both_modes(solutions):
    """Training mode judged by statistics, eval mode exactly, as the verdict says."""
    from drtriton.service_client import Service
    items, labels = [], []
    for program in PROGRAMS:
        task, candidate = open(program).read(), open(solutions[program]).read()
        for eval_mode in (False, True):
            items.append({"task": task, "candidate": candidate,
                          "options": {"device": "cpu", "compile": False, "seed": 3, "eval_mode": eval_mode}})
            labels.append((os.path.basename(program), eval_mode))
    with Service(BIN, "--device", "cpu", "--workers-per-gpu", "2", cwd=ROOT, ready_s=120) as service:
        verdicts = service.post("/verify_batch", {"items": items})["verdicts"]
    for (name, eval_mode), v in zip(labels, verdicts):
        assert v["passed"], (name, eval_mode, v["reason"])
        assert v["random"]["judged"] == ("eval_mode_only" if eval_mode else "statistics"), (name, v["random"])
        assert v["checks"]["buffers_differ"] == []
    assert all(v["random"]["p_value"] > v["random"]["alpha"] for v in verdicts[::2])


def test_a_call_that_never_drops_is_the_identity(tmp_path):
    """F.dropout(x, p, training=False) is traced as it is written: no random stream."""
    if not os.path.exists(BIN):
        pytest.skip(f"{BIN} is not built (run make build)")
    program = tmp_path / "never.py"
    program.write_text(open(PROGRAMS[1]).read().replace("training=self.training", "training=False"))
    r = run("convert", str(program), "--no-verify", "-o", str(tmp_path / "never_triton.py"))
    assert r.returncode == 0, r.stderr
    solution = (tmp_path / "never_triton.py").read_text()
    assert solution.count("tl.rand(") == 1 and "(1,), device=device)" in solution
