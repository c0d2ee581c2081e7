# task: relu_scale.py  expect: rejected at correct because non-finite
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
    """Writes only the first block of its output and relies on the rest of the buffer
    still holding the reference's answer from the run before (memory reuse)."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty_like(x)
        relu_scale_kernel[(1,)](x, out, 64, self.scale, BLOCK=64)
        return out
