"""Why models/window_attention_relative_bias is rejected on inputs x1e4, on the CPU: one row of
its softmax turns on a near tie of two logits, and which fp32 answers keep that row's order
is luck. Prints the output's error against float64 for eager fp32, for the qkv Linear in
three-pass TF32 (the solution's tl.dot precision, emulated by rounding to TF32's 10-bit
mantissa), for eager with every intermediate rounded again (up to one ulp) and for eager
with its products summed in 4 chunks of K in a random order (split-K); and the logits of
the one row that is not one-hot.

    python3 bench/ill_conditioned_attention.py      (about a minute on 2 cores)
"""
import copy
import importlib.util
import os

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map

PROGRAM = os.path.join(os.path.dirname(__file__), "..", "tests", "programs", "real", "models",
                       "window_attention_relative_bias.py")


def tf32(a):
    return ((a.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)


def tf32x3(a, b):
    ah, bh = tf32(a), tf32(b)
    return ah @ bh + (ah @ tf32(b - bh) + tf32(a - ah) @ bh)


class RoundedAgain(TorchDispatchMode):
    def __init__(self, seed):
        super().__init__()
        self.generator = torch.Generator().manual_seed(seed)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.is_view or func._schema.is_mutable:
            return out
        move = lambda t: t * (1 + torch.finfo(t.dtype).eps * (2 * torch.rand(  # noqa: E731
            t.shape, generator=self.generator, dtype=t.dtype) - 1)) \
            if isinstance(t, torch.Tensor) and t.is_floating_point() else t
        return tree_map(move, out)


class SplitK(TorchDispatchMode):
    def __init__(self, seed, parts=4):
        super().__init__()
        self.generator, self.parts = torch.Generator().manual_seed(seed), parts

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        aten = torch.ops.aten
        if func == aten.addmm.default:
            return args[0] + self.__torch_dispatch__(aten.mm.default, types, args[1:])
        if func not in (aten.mm.default, aten.bmm.default):
            return func(*args, **(kwargs or {}))
        a, b = args
        k = a.shape[-1]
        cuts = sorted(torch.randperm(k - 1, generator=self.generator)[:self.parts - 1].add(1).tolist())
        bounds = [0] + cuts + [k]
        out = None
        for i in torch.randperm(len(bounds) - 1, generator=self.generator).tolist():
            part = func(a[..., bounds[i]:bounds[i + 1]], b[..., bounds[i]:bounds[i + 1], :])
            out = part if out is None else out + part
        return out


def main():
    spec = importlib.util.spec_from_file_location("program", PROGRAM)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    torch.manual_seed(0)
    model = program.Model(*program.get_init_inputs())
    model64 = copy.deepcopy(model).double()
    torch.manual_seed(1)
    x = program.get_inputs()[0] * 1e4
    softmax_inputs = []

    def run(m, *args):
        real = torch.softmax
        torch.softmax = lambda a, dim: softmax_inputs.append(a.detach()) or real(a, dim=dim)
        try:
            return m(*args)
        finally:
            torch.softmax = real

    err = lambda y, t: ((y.double() - t).norm() / t.norm()).item()  # noqa: E731
    with torch.no_grad():
        truth = run(model64, x.double())
        print(f"output error, eager fp32: {err(run(model, x), truth):.3g}")
        three_pass = copy.deepcopy(model)
        w, b = three_pass.qkv.weight, three_pass.qkv.bias
        three_pass.qkv.forward = lambda v: (tf32x3(v.reshape(-1, v.shape[-1]), w.t().contiguous())
                                            + b).reshape(*v.shape[:-1], -1)
        print(f"output error, the qkv Linear in three-pass TF32: {err(run(three_pass, x), truth):.3g}")
        qkv64 = x.double() @ w.double().t() + b.double()
        for name, qkv in (("fp32", x @ w.t() + b), ("three-pass TF32", tf32x3(x.reshape(-1, 128), w.t().contiguous())
                                                     .reshape(qkv64.shape) + b)):
            print(f"qkv error, {name}: {err(qkv, qkv64):.3g}")
        logits, eager_logits, tf32x3_logits = softmax_inputs[0], softmax_inputs[1], softmax_inputs[2]
        print(f"largest logit error: eager {(eager_logits.double() - logits).abs().max():.3g}, "
              f"three-pass TF32 {(tf32x3_logits.double() - logits).abs().max():.3g}")
        probs = torch.softmax(logits, -1)
        row = tuple((probs.amax(-1) < 0.999).nonzero()[0].tolist())
        top = logits[row].topk(2).indices
        print(f"rows not one-hot: {int((probs.amax(-1) < 0.999).sum())} of {probs.numel() // probs.shape[-1]}; "
              f"row {row}: float64 logits {logits[row][top].tolist()}, eager {eager_logits[row][top].tolist()}, "
              f"three-pass TF32 {tf32x3_logits[row][top].tolist()}")
        for name, mode in (("every intermediate rounded again", RoundedAgain), ("split-K", SplitK)):
            errors = []
            for draw in range(8):
                with mode(draw):
                    errors.append(err(model(x), truth))
            print(f"output error, {name}, 8 draws: " + ", ".join(f"{e:.2g}" for e in errors))


if __name__ == "__main__":
    main()
