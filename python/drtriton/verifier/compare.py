"""Outputs against the float64 truth (docs/verifier.md, Correct).

err(y) = ||y - truth|| / ||truth|| over the entries where eager fp32 and the truth are
both finite (absolute ||y - truth|| when the truth is zero there). A candidate output
passes when shapes and dtypes equal eager's exactly, non-finite values (NaN, +inf, -inf,
each kind) sit exactly where eager's fp32 output has them, and
err(candidate) <= max(8 * err(eager fp32), 1e-6); for an integer or bool output the floor is 0,
so where eager's is exact (a count, a sum of int64 ids) the candidate's must be too.

Where the candidate misses that bound, the judge adds more honest fp32 answers (`others`:
eager on the inputs moved by one rounding, up to SECOND_SAMPLES of them, until the
candidate passes) and err(eager) becomes the largest of their errors. For a
well-conditioned output they all err alike and the verdict stands; where the output is
rounding noise (a mean of normalized values, mathematically zero) a single sample of that
noise is no bound (docs/verifier.md, The comparison).
"""

from __future__ import annotations

import torch

ERR_FACTOR = 8.0
ERR_FLOOR = 1e-6
SECOND_SAMPLES = 4


class Mismatch(Exception):
    """The candidate's output is wrong; the message is the verdict's reason."""


def leaves(out):
    """Flatten a forward's result into a list of tensors (python numbers become tensors)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in leaves(o)]
    if isinstance(out, dict):
        return [t for k in sorted(out) for t in leaves(out[k])]
    if isinstance(out, (bool, int, float)):
        return [torch.tensor(out)]
    if out is None:
        return []
    raise Mismatch(f"output of type {type(out).__name__} is not a tensor, tuple or list")


def structure(out):
    if isinstance(out, torch.Tensor):
        return "T"
    if isinstance(out, (list, tuple)):
        return "(" + ",".join(structure(o) for o in out) + ")"
    if isinstance(out, dict):
        return "{" + ",".join(f"{k}:{structure(out[k])}" for k in sorted(out)) + "}"
    return type(out).__name__


def _kind(t):
    """0 finite, 1 nan, 2 +inf, 3 -inf."""
    i8 = torch.int8
    return torch.isnan(t).to(i8) + 2 * torch.isposinf(t).to(i8) + 3 * torch.isneginf(t).to(i8)


def _norms(y, truth, mask):
    """||y - truth|| and ||truth|| over `mask`, as float64 tensors on the device: no host
    sync (a boolean index would wait for the GPU once per output and per operand)."""
    t = truth.double()
    zero = torch.zeros((), dtype=torch.float64, device=t.device)
    if y.dtype == truth.dtype and y.dtype in (torch.int64, torch.int32, torch.int16, torch.int8):
        diff = (y - truth).double()  # exact: an int64 past 2**53 has no double of its own
    else:
        diff = y.double() - t
    d = torch.where(mask, diff, zero)
    return torch.linalg.vector_norm(d), torch.linalg.vector_norm(torch.where(mask, t, zero))


def _ratio(nd, nt):
    return nd / nt if nt > 0 else nd


def rel_err(y, truth, mask):
    nd, nt = torch.stack(_norms(y, truth, mask)).tolist()
    return _ratio(nd, nt)


def check_output(cand, eager, truth, others=()):
    """Compare one forward's results. Returns [(err_cand, err_eager, bound)] per output
    tensor; raises Mismatch for a wrong structure, shape, dtype or non-finite pattern.
    `others`: more honest fp32 answers; err_eager is then the largest error of all (each
    over the entries where it is finite too). Each output costs one wait for the
    device (all its figures come back in one copy)."""
    if structure(cand) != structure(eager):
        raise Mismatch(f"output structure {structure(cand)} differs from the reference's {structure(eager)}")
    rows = []
    other_leaves = [leaves(o) for o in others]
    for i, (c, e, t) in enumerate(zip(leaves(cand), leaves(eager), leaves(truth))):
        if tuple(c.shape) != tuple(e.shape):
            raise Mismatch(f"output {i} has shape {tuple(c.shape)}, the reference {tuple(e.shape)}")
        if c.dtype != e.dtype:
            raise Mismatch(f"output {i} has dtype {c.dtype}, the reference {e.dtype}")
        if c.device != e.device:
            raise Mismatch(f"output {i} is on {c.device}, the reference's on {e.device}")
        c = c.detach().to(t.device)
        e = e.detach().to(t.device)
        floating = c.is_floating_point() or c.is_complex()
        if floating:
            kc, ke = _kind(c), _kind(e)
            differ = kc != ke
            # entries whose kind differs, and of those, non-finite where eager is finite
            counts = torch.stack([differ.sum(), (differ & (ke == 0)).sum()])
            mask = (ke == 0) & torch.isfinite(t)
        else:
            counts = torch.zeros(2, device=c.device)
            mask = torch.ones(c.shape, dtype=torch.bool, device=c.device)
        nd_c, nt = _norms(c, t, mask)
        nd_e, _ = _norms(e, t, mask)
        figures = [*counts.double(), nd_c, nd_e, nt]
        for o in other_leaves:
            e2 = o[i].detach().to(t.device)
            if e2.shape == e.shape:
                figures += _norms(e2, t, mask & torch.isfinite(e2))
        bad, extra, nd_c, nd_e, nt, *pairs = torch.stack(figures).tolist()
        if bad:
            raise Mismatch(f"output {i}: non-finite values differ from eager fp32 at {int(bad)} entries "
                           f"({int(extra)} non-finite where eager is finite)")
        err_c, err_e = _ratio(nd_c, nt), _ratio(nd_e, nt)
        err_e = max([err_e] + [_ratio(a, b) for a, b in zip(pairs[::2], pairs[1::2])])
        # An integer output has no rounding to forgive: off by one in 2**40 is wrong.
        rows.append((err_c, err_e, max(ERR_FACTOR * err_e, ERR_FLOOR if floating else 0.0)))
    return rows


def _tensor_pairs(a, b):
    """The two results' tensors side by side, or None where their structure, a shape or a
    dtype differs."""
    try:
        la, lb = leaves(a), leaves(b)
    except Mismatch:
        return None
    if structure(a) != structure(b) or len(la) != len(lb):
        return None
    if any(x.shape != y.shape or x.dtype != y.dtype for x, y in zip(la, lb)):
        return None
    return list(zip(la, lb))


def same_within(a, b, tol):
    """Whether two forwards' results agree within torch.allclose(rtol=tol, atol=tol), every
    tensor, as KernelBench's harness compares (NaN equal to NaN)."""
    pairs = _tensor_pairs(a, b)
    return pairs is not None and all(
        torch.allclose(x.double(), y.double(), rtol=tol, atol=tol, equal_nan=True)
        if x.is_floating_point() else torch.equal(x, y) for x, y in pairs)


def outputs_equal(a, b):
    """Bitwise-equal results (NaN equal to NaN), for the no-op test."""
    pairs = _tensor_pairs(a, b)
    if pairs is None:
        return False
    for x, y in pairs:
        if x.is_floating_point():
            if not torch.equal(torch.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0),
                               torch.nan_to_num(y, nan=0.0, posinf=1.0, neginf=-1.0)):
                return False
            if not torch.equal(torch.isnan(x), torch.isnan(y)):
                return False
        elif not torch.equal(x, y):
            return False
    return True


def storages(tensors):
    """(device, first byte, end byte) of the storage behind each tensor."""
    out = []
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.device.type != "meta":
            s = t.untyped_storage()
            out.append((str(t.device), s.data_ptr(), s.data_ptr() + s.nbytes()))
    return out


def overlaps(a, b):
    return any(da == db and sa < eb and sb < ea for da, sa, ea in a for db, sb, eb in b)
