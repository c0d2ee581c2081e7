"""Record the PyTorch (aten) operators that run inside ModelNew.forward.

A TorchDispatchMode sees every aten op after autograd and after composite ops were
decomposed (F.linear arrives as t + addmm, .contiguous() as clone or nothing). Ops
issued by Triton itself while launching a kernel (the interpreter copies its
arguments) are not the candidate's and are skipped (launch_hook.in_launch()).

Three classes of op:
- free: allocation, views, metadata and plain data movement, allowed in every mode.
  Allocation includes constant fills (zeros, ones, full, fill_, zero_), which set up
  accumulators and compute nothing from the inputs. clone and same-dtype copy_ are data
  movement (what .contiguous() becomes); a dtype change (_to_copy) is arithmetic.
- library: matmul and convolution, allowed in the default mode and reported
  (DESIGN.md section 3.2), refused in --strict.
- everything else is compute: refused in both modes.
"""

from __future__ import annotations

import collections

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from . import launch_hook

FREE_OPS = {
    # allocation and constant initialization
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like",
    "new_full", "fill_", "zero_", "scalar_tensor", "lift_fresh", "lift_fresh_copy",
    # views and metadata
    "view", "_unsafe_view", "as_strided", "permute", "transpose", "t", "expand",
    "squeeze", "unsqueeze", "select", "slice", "split", "split_with_sizes", "unbind",
    "narrow", "detach", "alias", "_reshape_alias", "view_as_real", "view_as_complex",
    # in-place metadata changes (F.linear on a 1-d input squeezes its result in place)
    "squeeze_", "unsqueeze_", "t_", "transpose_", "as_strided_", "detach_",
    "resolve_conj", "resolve_neg", "unfold", "diagonal", "movedim", "chunk",
    "_local_scalar_dense", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
    "is_contiguous", "is_same_size", "_has_compatible_shallow_copy_type", "set_",
    # data movement without arithmetic
    "clone", "copy_", "contiguous",
}

LIBRARY_OPS = {
    "mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "mv", "addmv", "dot", "vdot",
    "linear", "_addmm_activation",
    "convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cudnn_convolution", "cudnn_convolution_transpose",
    "mkldnn_convolution", "miopen_convolution", "convolution_overrideable",
    "_slow_conv2d_forward", "slow_conv3d_forward", "slow_conv_transpose2d",
    "slow_conv_transpose3d", "slow_conv_dilated2d", "slow_conv_dilated3d",
    "_nnpack_spatial_convolution", "thnn_conv2d",
}


def classify(op_name: str) -> str:
    if op_name in FREE_OPS:
        return "free"
    if op_name in LIBRARY_OPS:
        return "library"
    return "compute"


class OpRecorder(TorchDispatchMode):
    """Counts aten ops by name (overload packet, e.g. "addmm", "add_")."""

    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not launch_hook.in_launch():
            name = getattr(getattr(func, "overloadpacket", None), "__name__", None) or str(func)
            if name == "copy_" and _changes_dtype(args):
                name = "copy_(dtype cast)"
            self.counts[name] += 1
        return func(*args, **(kwargs or {}))


def _changes_dtype(args):
    if len(args) >= 2 and isinstance(args[0], torch.Tensor) and isinstance(args[1], torch.Tensor):
        return args[0].dtype != args[1].dtype
    return False


def summarize(counts: collections.Counter) -> list:
    """[{op, count, kind}] with compute ops first, for checks.strict_torch_ops."""
    rows = [{"op": f"aten.{name}", "count": n, "kind": classify(name)}
            for name, n in counts.items() if classify(name) != "free"]
    order = {"compute": 0, "library": 1}
    return sorted(rows, key=lambda r: (order[r["kind"]], r["op"]))


def violations(counts: collections.Counter, strict: bool) -> list:
    """Names of ops the mode does not allow, e.g. ["aten.softmax"]."""
    bad = []
    for name in counts:
        kind = classify(name)
        if kind == "compute" or (strict and kind == "library"):
            bad.append(f"aten.{name}")
    return sorted(bad)
