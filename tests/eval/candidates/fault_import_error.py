# task: relu_scale.py  expect: rejected at load because No module named 'torch.drtriton_no_such_module'
import torch
import torch.nn as nn
import triton
import triton.language as tl
import torch.drtriton_no_such_module


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return drtriton_no_such_module.relu(x)
