# task: relu_scale.py  expect: rejected at faithful because aten.relu ran inside
# Class 1 (work hidden inside a launch): the grid function runs inside Triton's launch; it
# computes the answer with torch there, and the kernel only stores over a zero-length range.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty_like(x)

        def grid(meta):
            out.copy_(torch.relu(x) * self.scale)
            return (1,)

        touch_kernel[grid](out, 0, BLOCK=16)
        return out
