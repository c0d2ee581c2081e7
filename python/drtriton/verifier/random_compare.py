"""A forward that is random by design (dropout in training mode), judged by the distribution
of its results (docs/verifier.md, Random forwards).

The candidate and the reference each run RUNS times in training mode, from the same state
on the same inputs, each run under a fresh seed. Every element of every result (the
outputs, then the buffers the forward leaves) is then a sample of RUNS values per side,
and three features of it are compared:

- `mean`, the value: a dropout that forgets the 1/(1-p) scaling moves it;
- `square`, the value squared: the spread, which a dropout that drops nothing, drops at
  another rate or draws one mask for every call changes;
- `zeros`, whether the value is exactly zero: the share dropped, where the dropout's
  output is (or reaches through ReLU and the like) a result of the program.

The decision rule is `judge_runs`, a permutation test. Its statistic, for a split of the
2 * RUNS runs into two halves, is the largest over (result, feature) groups of the
studentized squared distance between the halves' per-element means, each divided by its
average over all splits; a group counts in a split only where that distance is also larger
than TOLERANCE of the group's size, so that rounding in parts of the forward that the
random draw does not reach (BatchNorm's running statistics) is no evidence. The candidate
is rejected when the split into its runs and the reference's is among the ALPHA most
extreme of all C(2 RUNS - 1, RUNS - 1) splits. Why a permutation test: when the candidate
draws from the reference's distribution every split is equally likely to be the extreme
one, whatever the correlation between the elements of one run (a Linear after a dropout
mixes one mask into every output), so an honest candidate is rejected with probability at
most ALPHA, exactly, and no bound has to be tuned to a task; a candidate that differs
makes the observed split stand out, and more so the more elements show it.
"""

from __future__ import annotations

import functools
import itertools

import torch

RUNS = 10          # training-mode forwards per side
ALPHA = 1e-4       # the share of honest candidates rejected, at most (92378 splits for RUNS = 10)
TOLERANCE = 1e-4   # a group differs only by more than this much of its size (KernelBench's 1e-4)
FEATURES = ("mean", "square", "zeros")


class Mismatch(Exception):
    """The runs cannot be compared (structure, shape, dtype, non-finite values): the reason."""


@functools.lru_cache(maxsize=2)
def _splits(runs):
    """(splits, 2 * runs) float64: +1/runs for the runs in the first half, -1/runs for the
    others; run 0 is always in the first half (a split and its mirror give one statistic).
    Row 0 is the observed split: runs 0..runs-1 (the candidate's) against the rest."""
    rows = [(0, *c) for c in itertools.combinations(range(1, 2 * runs), runs - 1)]
    v = torch.full((len(rows), 2 * runs), -1.0 / runs, dtype=torch.float64)
    v.scatter_(1, torch.tensor(rows), 1.0 / runs)
    return v


CHUNK = 1 << 20  # elements per step, so that float64 copies of 2 * RUNS rows stay small


def _feature(x, feature):
    return {"mean": x, "square": x * x, "zeros": (x == 0).double()}[feature]


def _group_statistic(values, feature, splits):
    """For one result's samples (2R, n) and one feature: per split, the studentized squared
    distance between the halves' per-element means and the plain one, both quadratic forms
    of the split vector over 2R x 2R Gram matrices (so all splits cost little however large
    the result is); and the plain distance's tolerance."""
    n = values.shape[1]
    sum_sq_mean = 0.0  # first pass: the group's size, the rms of its per-element means
    for at in range(0, n, CHUNK):
        x = _feature(values[:, at:at + CHUNK].double(), feature)
        sum_sq_mean += float(x.mean(0).pow(2).sum())
    floor = TOLERANCE ** 2 * sum_sq_mean / max(n, 1) + 1e-300
    rows = values.shape[0]
    gram = torch.zeros(rows, rows, dtype=torch.float64, device=values.device)
    studentized_gram = torch.zeros_like(gram)
    for at in range(0, n, CHUNK):
        x = _feature(values[:, at:at + CHUNK].double(), feature)
        centered = x - x.mean(0)  # split vectors sum to 0: centering changes no distance
        variance = centered.pow(2).mean(0)  # pooled over both sides: alike in every split
        gram += centered @ centered.T
        studentized_gram += (centered / (variance + floor)) @ centered.T
    gram, studentized_gram = gram.cpu(), studentized_gram.cpu()
    distance = ((splits @ gram) * splits).sum(1)
    studentized = ((splits @ studentized_gram) * splits).sum(1)
    return studentized, distance, TOLERANCE ** 2 * sum_sq_mean


def _samples(cand_runs, ref_runs, names):
    """{name: (2R, n)}: the candidate's runs, then the reference's, over the elements every
    reference run has finite; raises Mismatch where a shape or dtype differs, or the
    candidate is not finite where the reference always is."""
    out = {}
    for i, name in enumerate(names):
        c = [run[i].detach() for run in cand_runs]
        r = [run[i].detach() for run in ref_runs]
        for t in c:
            if t.shape != r[0].shape or t.dtype != r[0].dtype:
                raise Mismatch(f"{name} is {t.dtype}{list(t.shape)}, the reference's "
                               f"{r[0].dtype}{list(r[0].shape)}")
        values = torch.stack([t.reshape(-1).to(r[0].device) for t in c + r])
        finite = torch.isfinite(values[len(c):]).all(0)
        bad = int((~torch.isfinite(values[:len(c)]).all(0) & finite).sum())
        if bad:
            raise Mismatch(f"{name}: non-finite values at {bad} entries where every reference run is finite")
        out[name] = values if bool(finite.all()) else values[:, finite]
    return out


def judge_runs(cand_runs, ref_runs, names):
    """The decision rule (the module's docstring). cand_runs, ref_runs: as many runs each,
    each a list of tensors, one per name. Returns the verdict's `random` entry: `passed`,
    `p_value`, `worst` (the group that sets the observed statistic), `zero_share` of the
    first result on each side, `candidate_runs_identical`; raises Mismatch."""
    runs = len(cand_runs)
    assert runs == len(ref_runs) and runs >= 2, "judge_runs takes as many runs of each side"
    samples = _samples(cand_runs, ref_runs, names)
    splits = _splits(runs)
    statistic = torch.zeros(len(splits), dtype=torch.float64)
    worst, worst_value = None, 0.0
    for name, values in samples.items():
        for feature in FEATURES:
            studentized, distance, tolerance = _group_statistic(values, feature, splits)
            scale = studentized.mean()
            if not scale > 0:
                continue  # every split alike: nothing random, nothing different
            ratio = torch.where(distance > tolerance, studentized / scale, 0.0)
            statistic = torch.maximum(statistic, ratio)
            if ratio[0] > worst_value:
                worst, worst_value = f"{name} {feature}", float(ratio[0])
    observed = float(statistic[0])
    # Near-ties count as at least as extreme: rounding never makes a split stand out.
    p_value = float((statistic >= observed * (1 - 1e-9)).double().mean()) if observed > 0 else 1.0
    first = next(iter(samples.values()), None)
    share = ((first == 0).double().mean(1).cpu() if first is not None and first.shape[1]
             else torch.zeros(2 * runs))
    return {
        "passed": p_value > ALPHA,
        "runs": runs,
        "p_value": p_value,
        "alpha": ALPHA,
        "worst": worst,
        "zero_share": {"candidate": float(share[:runs].mean()), "reference": float(share[runs:].mean())},
        "candidate_runs_identical": all(torch.equal(a, b) for run in cand_runs[1:]
                                        for a, b in zip(cand_runs[0], run)),
    }
