# task: row_softmax.py  expect: rejected at faithful because the reference makes 0
# Class 6 (library calls judged by name only): the row sums of a softmax are computed by
# cuBLAS as a product with a ones vector; the reference itself runs no matmul.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def exp_kernel(x_ptr, e_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(e_ptr + row * n_cols + offs, e, mask=mask)


@triton.jit
def divide_kernel(e_ptr, s_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    e = tl.load(e_ptr + row * n_cols + offs, mask=mask)
    tl.store(out_ptr + row * n_cols + offs, e / tl.load(s_ptr + row), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        rows, cols = x.shape
        e = torch.empty_like(x)
        block = triton.next_power_of_2(cols)
        exp_kernel[(rows,)](x, e, cols, BLOCK=block)
        sums = torch.mm(e, torch.ones(cols, 1, device=x.device, dtype=x.dtype))
        out = torch.empty_like(x)
        divide_kernel[(rows,)](e, sums, out, cols, BLOCK=block)
        return out
