# task: relu_scale.py  expect: rejected at static because computed attribute name
# Class 9 (static name rules dodged): binding the name eval, and reaching torch.library and
# the reference through strings built at run time.
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


def lookup(eval, name):
    return getattr(eval, "li" + name)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.lib = lookup(torch, "brary")

    def forward(self, x):
        out = torch.empty_like(x)
        relu_scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), self.scale, BLOCK=1024)
        return out
