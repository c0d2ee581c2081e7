"""Record the PyTorch operators that run inside ModelNew.forward, and judge them.

A TorchDispatchMode sees every op after autograd and after composite ops were
decomposed (F.linear arrives as t + addmm, .contiguous() as clone or nothing). Ops
issued by Triton itself while a kernel launches (the interpreter copies its arguments)
are not the candidate's and are skipped (launch_hook.in_launch()); a launch's grid
function is the candidate's code and is recorded.

Only operators of the `aten` namespace can be free or library ops: a custom operator
(torch.library, any other namespace) is compute whatever its name, since its insides
are not seen. Three classes:
- free: allocation, views, metadata and plain data movement on one device, allowed in
  every mode. Allocation includes constant fills (zeros, ones, full, fill_, zero_),
  which set up accumulators and compute nothing from the inputs, and random integer fills
  (randint, random_), which draw the seeds of a kernel's random stream. clone and same-dtype,
  same-device copy_ are data movement (what .contiguous() becomes); a dtype change or a
  move between devices is not.
- library: matmul, convolution (cuBLAS, cuDNN) and recurrent layers (cuDNN's fused RNN),
  allowed in the default mode only as the reference itself uses them: at most as many of
  each kind per forward as one forward of the reference runs (docs/verifier.md, Rules on every forward);
  refused in --strict. Fused variants (_addmm_activation: a GELU or ReLU inside the GEMM)
  are compute. A recurrent layer (torch.lstm, gru, rnn_tanh, rnn_relu, which nn.LSTM/GRU/RNN
  call) is one library op, counted where it is called (a TorchFunctionMode): below it the
  dispatch mode would see, on the CPU, the matmuls and activations it decomposes into, on a
  GPU cuDNN's _cudnn_rnn; the ops it runs are not recorded.
- everything else is compute, refused in both modes. Reading a tensor's data on the
  host (.item(), float(t), `if t:`) is compute too: ModelNew.forward may read sizes,
  never values.
"""

from __future__ import annotations

import collections
import types

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from . import launch_hook

FREE_OPS = frozenset({
    # allocation and constant initialization
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like",
    "new_full", "fill_", "zero_", "scalar_tensor", "lift_fresh", "lift_fresh_copy",
    # random integer fills: the seed of a kernel's own random stream (dropout) is drawn from
    # PyTorch's generator, so that torch.manual_seed makes a run reproducible
    "randint", "random_",
    # views and metadata
    "view", "_unsafe_view", "as_strided", "permute", "transpose", "t", "expand",
    "squeeze", "unsqueeze", "select", "slice", "split", "split_with_sizes", "unbind",
    "narrow", "detach", "alias", "_reshape_alias", "view_as_real", "view_as_complex",
    # in-place metadata changes (F.linear on a 1-d input squeezes its result in place)
    "squeeze_", "unsqueeze_", "t_", "transpose_", "as_strided_", "detach_",
    "resolve_conj", "resolve_neg", "unfold", "diagonal", "movedim", "chunk",
    "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
    "is_contiguous", "is_same_size", "_has_compatible_shallow_copy_type",
    # data movement without arithmetic (copy_ only within a device and a dtype)
    "clone", "copy_", "contiguous",
})

# Library ops by kind: a candidate may run, per forward, as many of a kind as the reference.
LIBRARY_KINDS = {
    "matmul": ("mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "mv", "addmv", "dot",
               "vdot", "linear"),
    "convolution": ("convolution", "_convolution", "conv1d", "conv2d", "conv3d",
                    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                    "cudnn_convolution", "cudnn_convolution_transpose", "mkldnn_convolution",
                    "miopen_convolution", "convolution_overrideable", "_slow_conv2d_forward",
                    "slow_conv3d_forward", "slow_conv_transpose2d", "slow_conv_transpose3d",
                    "slow_conv_dilated2d", "slow_conv_dilated3d", "_nnpack_spatial_convolution",
                    "thnn_conv2d"),
    # The layer as called (see RECURRENT_LAYERS), and its backends' kernels for a candidate
    # that calls one directly.
    "rnn": ("lstm", "gru", "rnn_tanh", "rnn_relu", "_cudnn_rnn", "miopen_rnn",
            "mkldnn_rnn_layer"),
}
LIBRARY_KIND = types.MappingProxyType({op: kind for kind, ops in LIBRARY_KINDS.items() for op in ops})
LIBRARY_OPS = frozenset(LIBRARY_KIND)


def classify(op_name: str) -> str:
    if op_name in FREE_OPS:
        return "free"
    if op_name in LIBRARY_OPS:
        return "library"
    return "compute"


def op_name(func, args) -> str:
    """The name an op is judged by: "addmm", "copy_(dtype cast)", "mylib::clone"."""
    packet = getattr(getattr(func, "overloadpacket", None), "__name__", None) or str(func)
    namespace = getattr(func, "namespace", "aten")
    if namespace != "aten":
        return f"{namespace}::{packet}"  # never in FREE_OPS or LIBRARY_OPS
    if packet == "copy_" and len(args) >= 2 and isinstance(args[0], torch.Tensor) \
            and isinstance(args[1], torch.Tensor):
        if args[0].device != args[1].device:
            return "copy_(device transfer)"
        if args[0].dtype != args[1].dtype:
            return "copy_(dtype cast)"
    return packet


# Recurrent layers, each one library call whatever it runs below (torch._VF.lstm is torch.lstm).
RECURRENT_LAYERS = {torch.lstm: "lstm", torch.gru: "gru", torch.rnn_tanh: "rnn_tanh",
                    torch.rnn_relu: "rnn_relu"}


class _RecurrentLayers(TorchFunctionMode):
    """Counts each recurrent layer call as one op and hides what it runs from `recorder`."""

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = RECURRENT_LAYERS.get(func) if not launch_hook.in_launch() else None
        if name is None:
            return func(*args, **(kwargs or {}))
        self.recorder.counts[name] += 1
        self.recorder.hidden += 1
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.recorder.hidden -= 1


class OpRecorder(TorchDispatchMode):
    """Counts ops by name (overload packet, e.g. "addmm", "add_"); a recurrent layer counts
    as itself ("lstm"), not as the ops it runs."""

    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()
        self.hidden = 0  # > 0 inside a recurrent layer
        self._layers = _RecurrentLayers(self)

    def __enter__(self):
        self._layers.__enter__()
        try:
            return super().__enter__()
        except BaseException:
            self._layers.__exit__(None, None, None)
            raise

    def __exit__(self, *exc):
        try:
            return super().__exit__(*exc)
        finally:
            self._layers.__exit__(*exc)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not launch_hook.in_launch() and not self.hidden:
            self.counts[op_name(func, args)] += 1
        return func(*args, **(kwargs or {}))


NORMALIZING = ("norm", "var", "std")  # layer/batch/group/instance/rms norms, var, std


def normalizes(op_name: str) -> bool:
    """Whether an op divides by a spread of its input (an all-equal input is degenerate)."""
    return any(word in op_name for word in NORMALIZING)


def library_counts(counts) -> dict:
    """{kind: number of library ops of that kind} in one forward's counts."""
    out = collections.Counter()
    for name, n in counts.items():
        if name in LIBRARY_KIND:
            out[LIBRARY_KIND[name]] += n
    return dict(out)


def _label(name):
    return name if "::" in name else f"aten.{name}"


def summarize(counts) -> list:
    """[{op, count, kind}] with compute ops first, for checks.strict_torch_ops."""
    rows = [{"op": _label(name), "count": n, "kind": classify(name)}
            for name, n in counts.items() if classify(name) != "free"]
    order = {"compute": 0, "library": 1}
    return sorted(rows, key=lambda r: (order[r["kind"]], r["op"]))


def violations(counts, strict: bool, reference_library: dict | None = None) -> list:
    """What one forward ran that its mode does not allow, e.g. ["aten.softmax",
    "aten.mm (2 matmul calls, the reference makes 1)"]. `reference_library` is
    library_counts() of one reference forward; None allows any number."""
    bad = sorted(_label(name) for name in counts
                 if classify(name) == "compute" or (strict and classify(name) == "library"))
    if strict or reference_library is None:
        return bad
    for kind, n in sorted(library_counts(counts).items()):
        allowed = reference_library.get(kind, 0)
        if n > allowed:
            names = ", ".join(sorted(_label(k) for k in counts if LIBRARY_KIND.get(k) == kind))
            bad.append(f"{names} ({n} {kind} call{'s' * (n != 1)}, the reference makes {allowed})")
    return bad
