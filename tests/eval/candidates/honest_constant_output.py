# task: normalized_mean.py  expect: passed flags: task_output_constant
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def normalized_mean_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n
    d = tl.where(mask, x - mean, 0.0)
    std = tl.sqrt(tl.sum(d * d, axis=0) / (n - 1))
    tl.store(out_ptr + row, tl.sum(d / std, axis=0) / n)


class ModelNew(nn.Module):
    """Honest: one program per row, summing in its own order. The output is rounding noise
    around 0, so its error is judged against several samples of eager's noise, and the
    task is flagged as computing a constant."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, n = x.shape
        out = torch.empty(rows, device=x.device, dtype=x.dtype)
        normalized_mean_kernel[(rows,)](x, out, n, BLOCK=triton.next_power_of_2(n))
        return out
