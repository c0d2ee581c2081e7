# task: relu_scale.py  expect: rejected at timed because right only when checked  layer: runtime
# Class 5, runtime layer: checked runs have deterministic mode on, timed runs do not; the
# candidate computes only one element when it believes it is timed. Timed runs get fresh
# inputs and randomly chosen timed outputs are checked, so the shortcut is seen.
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
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel() if torch.are_deterministic_algorithms_enabled() else 1
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out
