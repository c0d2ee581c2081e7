"""The two learning rules of reinforcement learning (docs/design.md, Reinforcement learning), as pure functions
of one group: the G completions of one prompt, their log-likelihoods under the policy, and
the verifier's verdicts. Everything else (sampling, verifying, the KL term, the optimizer)
is shared, so a DRPO run differs from its GRPO twin only here.

A completion's log-likelihood `logp` is the mean of its answer tokens' log-probabilities
(a sum would favour short answers in the push-down and long ones in the pull-up). A correct
completion's speed score is log(t_eager / t_cand), clipped to [-SPEED_CLIP, SPEED_CLIP].

DRPO (decoupled):  loss = - sum_{o in S+} w(o) logp(o)  +  beta * logsumexp_{o in S-} logp(o)
    w = softmax over the correct completions S+ of speed / lam: every correct completion is
    pulled up, the fast ones most, and a slow correct one is never treated as a failure;
    the log-sum-exp pushes the incorrect ones S- down, the likeliest most.
GRPO (combined reward, the usual baseline):  loss = - mean_o A(o) logp(o)
    reward 1 + speed when correct, else 0; A = (reward - group mean) / (group std + eps).

Each function returns (loss, parts): parts are plain floats for the metrics, so the two
rules log comparable signals.
"""

import math

import torch

SPEED_CLIP = 2.0


def speed_score(t_eager_ms: float | None, t_cand_ms: float | None) -> float:
    """log(t_eager / t_cand), clipped; 0 when either time is missing or not positive."""
    if not t_eager_ms or not t_cand_ms or t_eager_ms <= 0 or t_cand_ms <= 0:
        return 0.0
    return max(-SPEED_CLIP, min(SPEED_CLIP, math.log(t_eager_ms / t_cand_ms)))


def drpo_loss(logp: torch.Tensor, correct: torch.Tensor, speed: torch.Tensor,
              lam: float = 1.0, beta: float = 1.0) -> tuple[torch.Tensor, dict]:
    """logp: (G,) mean answer-token log-probabilities (with grad); correct: (G,) bool;
    speed: (G,) speed scores (read only where correct)."""
    pos, neg = correct, ~correct
    pull = logp.new_zeros(())
    push = logp.new_zeros(())
    weights = torch.zeros_like(logp)
    if pos.any():
        weights[pos] = torch.softmax(speed[pos].to(logp.dtype) / lam, dim=0)
        pull = -(weights[pos].detach() * logp[pos]).sum()
    if neg.any():
        push = torch.logsumexp(logp[neg], dim=0)
    loss = pull + beta * push
    return loss, {"pull": pull.item(), "push": push.item(),
                  "max_weight": float(weights.max()) if pos.any() else 0.0}


def grpo_loss(logp: torch.Tensor, correct: torch.Tensor, speed: torch.Tensor,
              eps: float = 1e-4) -> tuple[torch.Tensor, dict]:
    """Same arguments as drpo_loss. A group whose rewards are all equal has no advantage and
    gives no gradient."""
    reward = torch.where(correct, 1.0 + speed.to(logp.dtype), torch.zeros_like(logp))
    std = reward.std(unbiased=False)
    advantage = (reward - reward.mean()) / (std + eps)
    loss = -(advantage.detach() * logp).mean()
    return loss, {"reward_mean": reward.mean().item(), "reward_std": std.item()}


def kl_to_reference(token_logp: torch.Tensor, ref_token_logp: torch.Tensor,
                    mask: torch.Tensor) -> torch.Tensor:
    """Mean over the answer tokens of the k3 estimate of KL(policy || reference),
    exp(d) - d - 1 with d = ref - policy: non-negative, unbiased, low variance on samples
    drawn from the policy. token_logp and ref_token_logp: (B, T); mask: (B, T) bool."""
    d = (ref_token_logp - token_logp)[mask]
    if d.numel() == 0:
        return token_logp.new_zeros(())
    return (torch.exp(d) - d - 1).mean()


def trust_region_penalty(kl: torch.Tensor, delta: float, coef: float) -> torch.Tensor:
    """coef * max(0, KL - delta): no pull back inside the trust region; 0 when coef is 0."""
    if coef == 0:
        return kl.new_zeros(())
    return coef * torch.clamp(kl - delta, min=0.0)


RULES = {"drpo": drpo_loss, "grpo": grpo_loss}
