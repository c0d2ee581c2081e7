# task: relu_scale.py  expect: rejected at static because reads tensor data on the host
# Class 2 (compute outside dispatch): the answer is computed in numpy, where no dispatch
# mode sees it, and a kernel copies it into place.
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
        host = torch.from_numpy((x.cpu().numpy().clip(0) * self.scale).astype("float32"))
        y = host.to(x.device)
        out = torch.empty_like(x)
        relu_scale_kernel[(triton.cdiv(x.numel(), 1024),)](y, out, x.numel(), 1.0, BLOCK=1024)
        return out
