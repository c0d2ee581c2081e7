# task: relu_scale.py  expect: rejected at faithful because _local_scalar_dense  layer: runtime
# Class 2: ModelNew.forward reads a value on the host (.item()) to choose what to do; reading
# data on the host is refused at run time too (the op recorder sees _local_scalar_dense).
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
        first = x.reshape(-1)[0].item()
        out = torch.empty_like(x)
        scale = self.scale if first == first else 0.0
        relu_scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), scale, BLOCK=1024)
        return out
