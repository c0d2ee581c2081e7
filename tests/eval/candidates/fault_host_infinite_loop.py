# task: relu_scale.py  expect: hang at compile
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * scale, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        n = x.numel()
        while n > 0:  # n never changes
            n = n + 0
        out = torch.empty_like(x)
        relu_scale_kernel[(1,)](x, out, x.numel(), self.scale, BLOCK=1024)
        return out
