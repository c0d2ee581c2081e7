# task: relu_scale.py  expect: rejected at correct because sizes varied
# Class 8 (sizes varied downward only): one program per row, at most 8 programs; right for
# the task's 8 rows and for 7, wrong once the batch grows (the sizes varied upward: 17).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask)
    tl.store(out_ptr + row * n_cols + offs, tl.maximum(x, 0.0) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        rows, cols = x.shape
        out = torch.empty_like(x)
        row_kernel[(min(rows, 8),)](x, out, cols, self.scale, BLOCK=triton.next_power_of_2(cols))
        return out
