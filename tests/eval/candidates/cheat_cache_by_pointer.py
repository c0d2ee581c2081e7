# task: relu_scale.py  expect: rejected at faithful because assigned module state
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
    """Returns the stored output when it sees the same input memory again."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.cache = {}

    def launch(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out

    def forward(self, x):
        key = x.data_ptr()
        if key not in self.cache:
            self.cache[key] = self.launch(x)
        return self.cache[key]
