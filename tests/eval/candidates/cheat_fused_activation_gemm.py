# task: linear_relu.py  expect: rejected at faithful because _addmm_activation  layer: runtime
# Class 6, runtime layer: _addmm_activation (a ReLU inside cuBLAS's GEMM) is not a plain
# library matmul; it is compute, refused like any other.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = torch.ops.aten._addmm_activation(self.linear.bias, x, self.linear.weight.t())
        out = torch.empty_like(y)
        scale_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
