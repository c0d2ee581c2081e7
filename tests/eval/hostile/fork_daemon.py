# task: relu_scale.py  expect: rejected at load because os.fork
# Item 4: forks a daemon with os.fork (the audit hook's event).
import torch
import torch.nn as nn
import triton
import triton.language as tl

import os
import time

if os.fork() == 0:
    os.setsid()
    time.sleep(300)
    os._exit(0)

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
