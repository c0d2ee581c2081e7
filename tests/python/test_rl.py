"""Reinforcement learning (python/drtriton/learn/rl.py) on a CPU: completions judged by the
real verifier service (Triton's interpreter), two RL steps of each rule on a tiny warm-up
model, the curriculum's promotion, checkpoints and resume. The rules' arithmetic is
tests/python/test_rl_loss.py."""
import json
import os
import subprocess
from types import SimpleNamespace

import pytest
import torch

pytest.importorskip("transformers")
from safetensors.torch import load_file  # noqa: E402

from drtriton.learn import model as model_lib, rl, sft  # noqa: E402
from drtriton.service_client import Service, judge_once  # noqa: E402
from drtriton.learn.prompt import format_answer  # noqa: E402
from drtriton.learn.sample import ModelPolicy  # noqa: E402
from test_learn import BIN, WRONG_CANDIDATE, pairs, pairs_file, trained  # noqa: E402,F401


def records(out, name=rl.METRICS_FILE):
    with open(os.path.join(out, name)) as f:
        return [json.loads(line) for line in f]


def test_verifier_judges_every_completion(pairs):  # noqa: F811
    """Through a service given by URL (the trainers' case on a cluster); the two-step runs
    below start their own."""
    program, solution = pairs[0]["program"], pairs[0]["solution"]
    with Service(BIN, "--device", "cpu") as service:
        url = f"http://127.0.0.1:{service.port}"
        verifier = rl.Verifier(rl.Config(binary=BIN, service=f"{url},{url}"), "cpu", rank=0)
        verdicts = verifier.judge([program] * 4, [format_answer(solution), "no answer here",
                                                  format_answer(WRONG_CANDIDATE),
                                                  format_answer(solution)])
        verifier.close()  # a service given by URL is not stopped
        assert service.proc.poll() is None
    assert [v["passed"] for v in verdicts] == [True, False, False, True]
    assert verdicts[3] == verdicts[0]  # a repeated answer is judged once
    assert verdicts[1]["stage"] == "unparsed"
    assert verdicts[2]["stage"] in rl.STAGES[1:]
    assert verdicts[0]["speedup"] is None or verdicts[0]["speedup"] > 0


def test_each_distinct_item_is_judged_once():
    seen = []

    def judge(items):
        seen.append(items)
        return [f"verdict of {item['candidate']}" for item in items]

    items = [{"task": t, "candidate": c} for t, c in
             [("a", "x"), ("a", "y"), ("a", "x"), ("b", "x"), ("a", "y")]]
    verdicts = judge_once(items, judge)
    assert seen == [[items[0], items[1], items[3]]]  # the same candidate for another task counts
    assert verdicts == ["verdict of x", "verdict of y", "verdict of x", "verdict of x",
                        "verdict of y"]


def test_a_tasks_items_go_to_one_service():
    """So that the service's workers reuse the task's work (the verifier's task cache)."""
    class FakeService:
        def __init__(self):
            self.seen = []

        def post(self, path, body):
            self.seen.append([(i["task"], i["candidate"]) for i in body["items"]])
            return {"verdicts": [f"{i['task']}:{i['candidate']}" for i in body["items"]]}

    verifier = rl.Verifier.__new__(rl.Verifier)
    verifier.services = [FakeService(), FakeService()]
    items = [{"task": t, "candidate": c} for t, c in
             [("a", "1"), ("b", "2"), ("a", "3"), ("c", "4"), ("b", "5")]]
    assert verifier.spread(items) == ["a:1", "b:2", "a:3", "c:4", "b:5"]  # in order
    assert verifier.services[0].seen == [[("a", "1"), ("a", "3"), ("c", "4")]]
    assert verifier.services[1].seen == [[("b", "2"), ("b", "5")]]


@pytest.mark.parametrize("algo", ["drpo", "grpo"])
def test_two_steps_promote_and_resume(algo, trained, tmp_path):  # noqa: F811
    out = str(tmp_path / algo)
    config = dict(model=trained, out=out, algo=algo, levels="1,2", promote_at=0.0, group=2,
                  prompts=1, max_steps=2, max_new_tokens=24, eval_every=1, eval_programs=2,
                  lr=1e-3, kl_delta=0.0, binary=BIN, seed=1)
    result = rl.train(rl.Config(**config))
    # promote_at 0: the first evaluation promotes to level 2, the last one
    assert result == {"step": 2, "stopped": "max_steps", "level": 2}
    steps = [r for r in records(out) if "loss" in r]
    assert [(r["step"], r["level"]) for r in steps] == [(1, 1), (2, 2)]
    for r in steps:
        shares = sum(r["share_" + s] for s in ("passed",) + rl.STAGES)
        assert shares == pytest.approx(1.0) and r["kl"] >= 0 and r["entropy"] > 0
    assert steps[0]["kl"] == pytest.approx(0.0, abs=1e-6)  # the policy starts at the reference
    assert [r["step"] for r in records(out) if "dev_pass" in r] == [1, 2]
    assert os.path.getsize(os.path.join(out, "metrics.png")) > 1000
    samples = records(out, rl.SAMPLES_FILE)  # each step's 2 completions, judged
    assert [(s["step"], s["prompt"]) for s in samples] == [(1, 0), (1, 0), (2, 0), (2, 0)]
    assert all(s["stage"] in ("passed",) + rl.STAGES and "completion" in s for s in samples)
    start = load_file(os.path.join(trained, "model.safetensors"))
    after = load_file(os.path.join(out, "model.safetensors"))
    moved = any(not torch.equal(start[k], after[k]) for k in start)
    if algo == "drpo":  # the wrong completions are pushed down even when none is right
        assert moved
    with pytest.raises(SystemExit):  # a second fresh run into a run directory is refused
        rl.train(rl.Config(**config))
    # resumed with replay: step 3 takes one prompt of level 2 and one of the level passed
    result = rl.train(rl.Config(**{**config, "max_steps": 3, "prompts": 2, "replay": 0.5}),
                      resume=True)
    assert result["step"] == 3
    assert [r["step"] for r in records(out) if "loss" in r] == [1, 2, 3]
    assert [(s["step"], s["prompt"]) for s in records(out, rl.SAMPLES_FILE)][4:] == [
        (3, 0), (3, 0), (3, 1), (3, 1)]
    last = [r for r in records(out) if "loss" in r][-1]
    assert 0 <= last["pass_rate_level1"] <= 1 and 0 <= last["pass_rate_level2"] <= 1
    assert last["pass_rate"] == pytest.approx(
        (last["pass_rate_level1"] + last["pass_rate_level2"]) / 2)


def test_replay_deals_a_share_of_prompts_over_the_levels_passed():
    def mix(level_index, replay, prompts=16):
        trainer = SimpleNamespace(cfg=rl.Config(replay=replay, prompts=prompts),
                                  levels=[1, 2, 5], level_index=level_index)
        return rl.Trainer.prompt_mix(trainer)

    assert mix(0, 0.25) == ((1, 16),)  # nothing passed yet
    assert mix(2, 0.0) == ((5, 16),)
    assert mix(1, 0.25) == ((2, 12), (1, 4))
    assert mix(2, 0.25) == ((5, 12), (2, 2), (1, 2))  # latest first
    assert mix(2, 1.0, prompts=4) == ((5, 1), (2, 2), (1, 1))  # the level keeps one prompt
    assert mix(1, 0.25, prompts=1) == ((2, 1),)


def test_lora_run_keeps_adapters_only_and_resumes_exactly(trained, tmp_path):  # noqa: F811
    """A LoRA run's checkpoint is its adapters (the warm-up stays where it is), and a run
    stopped after one step and resumed ends where a run of two steps straight ends. At 24
    tokens no answer closes its code block, so no verdict carries a (noisy) timing."""
    config = dict(model=trained, algo="drpo", levels="1", group=2, prompts=1,
                  max_new_tokens=24, eval_every=100, lr=1e-2, kl_delta=0.0, binary=BIN,
                  seed=1, lora_r=4)
    straight, split = str(tmp_path / "straight"), str(tmp_path / "split")
    rl.train(rl.Config(**config, out=straight, max_steps=2))
    rl.train(rl.Config(**config, out=split, max_steps=1))
    os.remove(os.path.join(split, rl.SAMPLES_FILE))  # carried state leaves it out (gpu_rl.sh)
    assert rl.train(rl.Config(**config, out=split, max_steps=2), resume=True)["step"] == 2
    assert [s["step"] for s in records(split, rl.SAMPLES_FILE)] == [2, 2]
    assert not os.path.exists(os.path.join(split, "model.safetensors"))
    after = [load_file(os.path.join(out, "adapter_model.safetensors")) for out in (straight, split)]
    assert after[0].keys() == after[1].keys() and len(after[0]) > 0
    assert all(torch.equal(after[0][k], after[1][k]) for k in after[0])
    # LoRA's B starts at zero: the adapters moved, so the policy did
    assert any(k.endswith("lora_B.weight") and after[0][k].abs().sum() > 0 for k in after[0])
    assert [r["step"] for r in records(split) if "loss" in r] == [1, 2]
    # the sampler folds the adapters into a copy; the policy it was made from keeps them
    policy, _ = model_lib.load(split, base=trained)
    folded = model_lib.merged(policy)
    assert hasattr(policy, "merge_and_unload") and not hasattr(folded, "merge_and_unload")
    sampler = ModelPolicy(split).model  # evaluate, bench and search load a run so
    ids = torch.tensor([[1, 5, 9, 13]])
    with torch.no_grad():
        logits = policy(input_ids=ids).logits
        for plain in (folded, sampler):
            assert torch.allclose(logits, plain(input_ids=ids).logits, atol=1e-5)


RELU_PROGRAM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(7, 14, 24)]


def get_init_inputs():
    return []
'''


@pytest.fixture(scope="module")
def memorized(tmp_path_factory):
    """(checkpoint, prompts file): a tiny model that learned the compiler's solution of one
    program by heart, so its samples pass and the reward's correct side runs."""
    folder = tmp_path_factory.mktemp("memorized")
    (folder / "relu.py").write_text(RELU_PROGRAM)
    subprocess.run([BIN, "convert", str(folder / "relu.py"), "-o", str(folder / "relu_triton.py"),
                    "--no-verify"], check=True, capture_output=True)
    pair = {"id": "relu", "seed": 0, "difficulty": 1, "ops": ["relu"], "program": RELU_PROGRAM,
            "solution": (folder / "relu_triton.py").read_text(), "variant": {},
            "verdict": {"passed": True}}
    (folder / "pairs.jsonl").write_text(json.dumps(pair) + "\n")
    (folder / "prompts.jsonl").write_text(json.dumps({"pytorch": RELU_PROGRAM,
                                                      "difficulty": 1}) + "\n")
    ckpt = str(folder / "ckpt")
    sft.train(sft.Config(model="tiny", data=str(folder / "pairs.jsonl"), out=ckpt,
                         vocab_size=512, max_len=1024, batch_size=1, warmup_steps=0,
                         heldout=0.0, max_steps=120, lr=1e-2, log_every=20, save_every=1000))
    return ckpt, str(folder / "prompts.jsonl")


def test_correct_samples_are_pulled_up(memorized, tmp_path):
    ckpt, prompts = memorized
    out = str(tmp_path / "run")
    result = rl.train(rl.Config(model=ckpt, out=out, prompts_file=prompts, levels="1",
                                group=4, prompts=1, max_steps=1, temperature=0.7,
                                max_new_tokens=600, eval_every=1, eval_programs=1,
                                binary=BIN))
    assert result == {"step": 1, "stopped": "max_steps", "level": 1}
    step, evaluation = records(out)
    assert step["pass_rate"] > 0 and step["share_passed"] == step["pass_rate"]
    assert step["mean_log_speedup"] is not None  # the speed side of the reward ran
    assert step["pull"] > 0 and 0 < step["max_weight"] <= 1
    assert evaluation == {"step": 1, "level": 1, "dev_pass": 1.0}  # greedy: the learned answer


def test_compare_runs_plots_runs_and_names_a_bad_line(tmp_path):
    from drtriton.learn import compare_runs
    for name, rate in (("drpo", 0.5), ("grpo", 0.25)):
        run = tmp_path / name
        run.mkdir()
        records = [{"step": 1, "level": 1, "pass_rate": rate, "kl": 0.0},
                   {"step": 1, "level": 1, "dev_pass": 0.8},
                   {"step": 2, "level": 2, "pass_rate": rate / 2, "kl": 1e-3}]
        (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "runs.png"
    compare_runs.main([str(tmp_path / "drpo"), str(tmp_path / "grpo"), "--out", str(out)])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    with open(tmp_path / "grpo" / "metrics.jsonl", "a") as f:
        f.write("{not json\n")
    with pytest.raises(SystemExit, match=r"grpo/metrics.jsonl:4: not JSON"):
        compare_runs.main([str(tmp_path / "drpo"), str(tmp_path / "grpo"), "--out", str(out)])
    with pytest.raises(SystemExit, match="no such file"):
        compare_runs.main([str(tmp_path), "--out", str(out)])
