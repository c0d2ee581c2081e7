# task: relu_scale.py  expect: rejected at correct because modified its input
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


class ModelNew(nn.Module):
    """Computes in place in its input: no allocation, and the input is gone."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, x, n, self.scale, BLOCK=1024)
        return x
