# task: batchnorm_train.py  expect: rejected at correct because buffer bn.running_mean differs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_train_kernel(x_ptr, w_ptr, b_ptr, out_ptr, running_mean_ptr, running_var_ptr,
                           tracked_ptr, B, C, eps, momentum, BLOCK_B: tl.constexpr):
    c = tl.program_id(0)
    rows = tl.arange(0, BLOCK_B)
    mask = rows < B
    x = tl.load(x_ptr + rows * C + c, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / B
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / B
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + c) + tl.load(b_ptr + c)
    tl.store(out_ptr + rows * C + c, y, mask=mask)
    # The running statistics, as nn.BatchNorm1d updates them: the unbiased variance.
    tl.store(running_mean_ptr + c, (1 - momentum) * tl.load(running_mean_ptr + c) + momentum * mean)
    tl.store(running_var_ptr + c,
             (1 - momentum) * tl.load(running_var_ptr + c) + momentum * var * B / (B - 1))
    if c == 0:
        tl.store(tracked_ptr, tl.load(tracked_ptr) + 1)


class ModelNew(nn.Module):
    """Training-mode BatchNorm1d with the right output whose running statistics are updated
    with momentum 0.1001 for 0.1: off by 1e-3 of the update, far more than fp32's rounding, so
    the samples of that rounding (eager on inputs moved by one rounding) do not excuse it."""

    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        x = x.contiguous()
        B, C = x.shape
        out = torch.empty_like(x)
        bn = self.bn
        batchnorm_train_kernel[(C,)](x, bn.weight, bn.bias, out, bn.running_mean, bn.running_var,
                                     bn.num_batches_tracked, B, C, bn.eps, bn.momentum * 1.001,
                                     BLOCK_B=triton.next_power_of_2(B))
        return out
