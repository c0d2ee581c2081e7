# task: relu_scale.py  expect: rejected at faithful because rt::clone  layer: runtime
# Class 1: a torch.library custom op named like a free op ("clone") whose insides compute
# the answer; only aten ops can be free, so it counts as compute whatever its name.
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


@torch.library.custom_op("rt::clone", mutates_args=())
def rt_clone(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.relu(x) * scale


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        y = rt_clone(x, 1.0)
        out = torch.empty_like(y)
        relu_scale_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), self.scale, BLOCK=1024)
        return out
