# task: row_softmax.py  expect: rejected at correct because all equal  options: {"seed": 1}
# A pinned seed: on about 5% of seeds the "mostly zero" set holds a row of zeros (all equal too).
# Class 10, structured inputs: a softmax that is wrong only for a row whose values are all
# equal (a special case that random draws never produce).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    top = tl.max(x, axis=0)
    low = tl.min(tl.where(mask, x, float("inf")), axis=0)
    e = tl.exp(x - top)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * n_cols + offs, tl.where(top == low, 0.0, y), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        rows, cols = x.shape
        out = torch.empty_like(x)
        softmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
