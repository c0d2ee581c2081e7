# task: relu_scale.py  expect: rejected at static because tensor subclass
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * scale, mask=mask)


class LazyTensor(torch.Tensor):
    """Defers the work until someone looks at the values (after the timer stopped)."""

    @staticmethod
    def __new__(cls, x, fn):
        t = torch.Tensor._make_subclass(cls, torch.empty_like(x))
        t.fn = fn
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        args = [a.fn() if isinstance(a, LazyTensor) else a for a in args]
        return func(*args, **(kwargs or {}))


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def launch(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out

    def forward(self, x):
        return LazyTensor(x, lambda: self.launch(x))
