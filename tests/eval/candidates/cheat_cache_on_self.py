# task: relu_scale.py  expect: rejected at faithful because assigned module state
# Class 5 (the timed stage): a dict made in __init__ keeps the first output; later calls
# (the timed ones) return it and launch only a token kernel. Mutating the dict is module
# state written during forward, refused like an assignment.
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
        self.memo = {}

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel() if len(self.memo) == 0 else 1
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        self.memo.setdefault("out", out)
        return self.memo["out"]
