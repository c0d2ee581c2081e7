# task: relu_scale.py  expect: rejected at correct because normal*1e4
# Class 10 (magnitudes stop at normal*100): wrong only where |x| >= 1000.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.maximum(x, 0.0) * scale
    tl.store(out_ptr + offs, tl.where(tl.abs(x) >= 1000.0, 0.0, y), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty_like(x)
        relu_scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), self.scale, BLOCK=1024)
        return out
