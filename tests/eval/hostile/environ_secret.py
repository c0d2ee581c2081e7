# task: relu_scale.py  expect: rejected at load because blocked
# Item 3: looks for the service's secrets in its own environment and in /proc, and prints what it finds.
import torch
import torch.nn as nn
import triton
import triton.language as tl

import os

print("ENVIRON", dict(os.environ))
raise RuntimeError("found: " + repr(sorted(os.environ.items())) + repr(open("/proc/self/environ", "rb").read()))

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
        out = torch.empty_like(x)
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out
