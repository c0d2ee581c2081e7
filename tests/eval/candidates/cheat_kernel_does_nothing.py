# task: relu_scale.py  expect: rejected at faithful because no-op leaves the output unchanged
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


@triton.jit
def warm_cache_kernel(x_ptr, scratch_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(scratch_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    """A second kernel that is launched but whose result nobody reads (padding the count)."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def launch(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out

    def forward(self, x):
        scratch = torch.empty_like(x)
        n = x.numel()
        warm_cache_kernel[(triton.cdiv(n, 1024),)](x, scratch, n, BLOCK=1024)
        return self.launch(x)
