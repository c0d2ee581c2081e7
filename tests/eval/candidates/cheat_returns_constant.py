# task: row_softmax.py  expect: rejected at correct because wrong output
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def uniform_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    """Every row of a softmax sums to one: answer 1/cols everywhere (right on average)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        uniform_kernel[(triton.cdiv(n, 1024),)](out, n, 1.0 / x.shape[1], BLOCK=1024)
        return out
