"""The learning rules of RL (python/drtriton/learn/rl_loss.py) against values worked out by
hand: a group all correct, all wrong, mixed; GRPO's group normalization; the KL trust region
on and off."""
import math
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from drtriton.learn import rl_loss  # noqa: E402

LOG2 = math.log(2.0)


def group(logp, correct, speed):
    return (torch.tensor(logp, dtype=torch.float64, requires_grad=True),
            torch.tensor(correct), torch.tensor(speed, dtype=torch.float64))


def grad_of(loss, logp):
    loss.backward()
    return logp.grad.tolist()


def test_speed_score_is_a_clipped_log_ratio():
    assert rl_loss.speed_score(2.0, 1.0) == pytest.approx(LOG2)
    assert rl_loss.speed_score(1.0, 4.0) == pytest.approx(-2 * LOG2)
    assert rl_loss.speed_score(100.0, 1.0) == 2.0 and rl_loss.speed_score(1.0, 100.0) == -2.0
    assert rl_loss.speed_score(None, 1.0) == 0.0 and rl_loss.speed_score(1.0, 0.0) == 0.0


def test_drpo_mixed_group():
    # two correct (2x faster than eager, as fast as eager), two wrong
    logp, correct, speed = group([-1.0, -2.0, -0.5, -3.0], [True, True, False, False],
                                 [LOG2, 0.0, 0.0, 0.0])
    loss, parts = rl_loss.drpo_loss(logp, correct, speed, lam=1.0, beta=1.0)
    # weights softmax(log 2, 0) = (2/3, 1/3); pull = -(2/3 * -1 + 1/3 * -2) = 4/3
    # push = log(e^-0.5 + e^-3) = -0.5 + log(1 + e^-2.5)
    push = -0.5 + math.log(1 + math.exp(-2.5))
    assert parts["pull"] == pytest.approx(4 / 3) and parts["push"] == pytest.approx(push)
    assert parts["max_weight"] == pytest.approx(2 / 3)
    assert loss.item() == pytest.approx(4 / 3 + push)
    # d loss / d logp: -w on the correct ones, softmax(logp) over the wrong ones
    p = 1 / (1 + math.exp(-2.5))
    assert grad_of(loss, logp) == pytest.approx([-2 / 3, -1 / 3, p, 1 - p])


def test_drpo_temperature_and_push_scale():
    logp, correct, speed = group([-1.0, -2.0, -0.5, -3.0], [True, True, False, False],
                                 [LOG2, 0.0, 0.0, 0.0])
    loss, parts = rl_loss.drpo_loss(logp, correct, speed, lam=0.5, beta=0.25)
    # lam 0.5: softmax(2 log 2, 0) = (4/5, 1/5)
    assert parts["max_weight"] == pytest.approx(0.8)
    p = 1 / (1 + math.exp(-2.5))
    assert grad_of(loss, logp) == pytest.approx([-0.8, -0.2, 0.25 * p, 0.25 * (1 - p)])


def test_drpo_all_correct_pulls_every_one_up_even_the_slow():
    logp, correct, speed = group([-1.0, -2.0, -4.0], [True] * 3, [-2.0, -2.0, -2.0])
    loss, parts = rl_loss.drpo_loss(logp, correct, speed)
    assert parts["push"] == 0.0 and loss.item() == pytest.approx(7 / 3)
    assert grad_of(loss, logp) == pytest.approx([-1 / 3] * 3)


def test_drpo_all_wrong_pushes_the_likeliest_down_most():
    logp, correct, speed = group([-1.0, -2.0], [False, False], [0.0, 0.0])
    loss, parts = rl_loss.drpo_loss(logp, correct, speed)
    assert parts["pull"] == 0.0
    assert loss.item() == pytest.approx(math.log(math.exp(-1) + math.exp(-2)))
    e = 1 / (1 + math.exp(-1))
    assert grad_of(loss, logp) == pytest.approx([e, 1 - e])


def test_grpo_mixed_group():
    logp, correct, speed = group([-1.0, -2.0, -0.5, -3.0], [True, True, False, False],
                                 [LOG2, 0.0, 5.0, 5.0])  # a wrong one's speed is never read
    loss, parts = rl_loss.grpo_loss(logp, correct, speed, eps=1e-4)
    reward = [1 + LOG2, 1.0, 0.0, 0.0]
    mean = sum(reward) / 4
    std = math.sqrt(sum((r - mean) ** 2 for r in reward) / 4)
    advantage = [(r - mean) / (std + 1e-4) for r in reward]
    assert parts["reward_mean"] == pytest.approx(mean) and parts["reward_std"] == pytest.approx(std)
    assert loss.item() == pytest.approx(-sum(a * l for a, l in zip(advantage, [-1, -2, -0.5, -3])) / 4)
    assert grad_of(loss, logp) == pytest.approx([-a / 4 for a in advantage])


@pytest.mark.parametrize("correct", [[True] * 3, [False] * 3])
def test_grpo_uniform_group_gives_no_gradient(correct):
    logp, correct, speed = group([-1.0, -2.0, -3.0], correct, [0.3, 0.3, 0.3])
    loss, _ = rl_loss.grpo_loss(logp, correct, speed)
    assert loss.item() == 0.0 and grad_of(loss, logp) == [0.0, 0.0, 0.0]


def test_kl_estimate_and_trust_region():
    policy = torch.tensor([[-1.0, -1.0, -7.0]], dtype=torch.float64)
    ref = torch.tensor([[-1.0, -1.0 + LOG2, 0.0]], dtype=torch.float64)
    mask = torch.tensor([[True, True, False]])  # the third token is not an answer token
    kl = rl_loss.kl_to_reference(policy, ref, mask)
    # tokens: d = 0 -> 0; d = log 2 -> 2 - log 2 - 1
    assert kl.item() == pytest.approx((2 - LOG2 - 1) / 2)
    assert rl_loss.kl_to_reference(policy, policy, mask).item() == 0.0
    kl = torch.tensor(0.3, dtype=torch.float64)
    assert rl_loss.trust_region_penalty(kl, delta=0.1, coef=2.0).item() == pytest.approx(0.4)
    assert rl_loss.trust_region_penalty(kl, delta=0.5, coef=2.0).item() == 0.0  # inside: off
    assert rl_loss.trust_region_penalty(kl, delta=0.1, coef=0.0).item() == 0.0  # switched off
