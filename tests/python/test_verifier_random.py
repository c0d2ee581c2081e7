"""A task whose training-mode forward is random (dropout) is judged in both modes: every stage
in eval mode, and training mode by the distribution of its results (random_compare.py, a
permutation test over the candidate's runs and the reference's). The rule alone on samples
drawn here, then the worker on the suite's dropout task: how the verdict says it was judged,
--eval-mode, and a task that is random in eval mode too. The hostile candidates
(cheat_dropout_*) are cases of the suite (test_verifier.py); the false-reject rate over many
seeds is measured by bench/random_judgement.py."""
import os

import pytest
import torch

from drtriton.verifier import client, random_compare

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SUITE = {c.name: c for c in client.load_suite(os.path.join(ROOT, "tests", "eval", "candidates"))}


def runs(draw, n=random_compare.RUNS):
    return [draw() for _ in range(n)]


def dropout(y, p, scale=True):
    keep = torch.rand(y.shape) >= p
    return torch.where(keep, y / (1 - p) if scale else y, 0.0)


def test_honest_samples_pass_and_each_dishonest_one_fails():
    torch.manual_seed(0)
    y = torch.randn(8, 64)
    names = ["output 0"]

    def honest():
        return [torch.relu(dropout(y, 0.1))]

    for _ in range(10):
        verdict = random_compare.judge_runs(runs(honest), runs(honest), names)
        assert verdict["passed"] and not verdict["candidate_runs_identical"], verdict
    fixed = honest()
    dishonest = {
        "drops nothing": lambda: [torch.relu(y)],
        "wrong p": lambda: [torch.relu(dropout(y, 0.2))],
        "no 1/(1-p)": lambda: [torch.relu(dropout(y, 0.1, scale=False))],
        "one mask": lambda: fixed,
    }
    for what, draw in dishonest.items():
        verdict = random_compare.judge_runs(runs(draw), runs(honest), names)
        assert not verdict["passed"] and verdict["p_value"] <= random_compare.ALPHA, (what, verdict)
    assert random_compare.judge_runs(runs(lambda: fixed), runs(honest), names)["candidate_runs_identical"]


def test_what_the_random_draw_does_not_reach_is_judged_within_the_tolerance():
    """A buffer every run leaves alike (BatchNorm's running mean before a dropout): rounding
    is no evidence, a wrong value is, however random the output beside it."""
    torch.manual_seed(1)
    y, mean = torch.randn(4, 32), torch.randn(16)
    names = ["output 0", "buffer bn.running_mean"]

    def side(buffer):
        return lambda: [dropout(y, 0.5), buffer]

    reference = runs(side(mean))
    assert random_compare.judge_runs(runs(side(mean * (1 + 1e-7))), reference, names)["passed"]
    verdict = random_compare.judge_runs(runs(side(mean * (1 + 1e-3))), reference, names)
    assert not verdict["passed"] and verdict["worst"].startswith("buffer bn.running_mean"), verdict


def test_runs_that_cannot_be_compared_are_refused():
    y = torch.randn(4, 4)
    with pytest.raises(random_compare.Mismatch, match="shape|float64"):
        random_compare.judge_runs(runs(lambda: [y.double()]), runs(lambda: [y]), ["output 0"])
    bad = y.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(random_compare.Mismatch, match="non-finite values at 1 entries"):
        random_compare.judge_runs(runs(lambda: [bad]), runs(lambda: [y]), ["output 0"])


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    w = client.WorkerClient("cpu", scratch=str(tmp_path_factory.mktemp("scratch")))
    w.start()
    yield w
    w.close()


def verdict_of(worker, task, candidate, **options):
    result = worker.request(task, candidate, {"compile": False, "seed": 5, **options}, timeout=180)
    assert result.outcome == "verdict", result.progress
    return result.verdict


def test_the_verdict_says_how_the_random_op_was_judged(worker):
    task, candidate = SUITE["honest_dropout_relu"].sources()
    v = verdict_of(worker, task, candidate)
    assert v["passed"], v["reason"]
    random = v["random"]
    assert random["judged"] == "statistics" and random["runs"] == random_compare.RUNS
    assert random["p_value"] > random["alpha"] == random_compare.ALPHA
    assert 0.5 < random["zero_share"]["candidate"] < 0.65  # ReLU's half, then p = 0.1 of the rest
    assert v["mode"]["judged"] == "eval" and "judged_in_eval_mode" in v["flags"]
    assert "eval_mode_forced_by_dropout" not in v["flags"]
    # Asked for eval mode, the training mode is not judged, and the verdict says so.
    v = verdict_of(worker, task, candidate, eval_mode=True)
    assert v["passed"] and v["random"] == {"judged": "eval_mode_only"}
    assert "eval_mode_forced_by_dropout" in v["flags"]
    # A deterministic task has no random entry.
    task, candidate = SUITE["honest_relu_scale"].sources()
    assert verdict_of(worker, task, candidate)["random"] is None


def test_a_task_random_in_eval_mode_too_is_the_tasks_fault(worker):
    """F.dropout without training=self.training drops in eval mode too: no result of it can
    be checked, whatever the candidate."""
    task, candidate = SUITE["honest_dropout_relu"].sources()
    always = task.replace("return torch.relu(self.dropout(x))",
                          "return torch.relu(torch.nn.functional.dropout(x, p=self.dropout.p))")
    assert always != task
    v = verdict_of(worker, always, candidate)
    assert not v["passed"] and v["failed_stage"] == "load"
    assert "other results on the same inputs in eval mode too" in v["reason"]
    assert {"task_error", "random_in_eval_mode"} <= set(v["flags"])
