# task: batchnorm_train.py  expect: rejected at correct because buffer bn.running_mean differs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_train_kernel(x_ptr, w_ptr, b_ptr, out_ptr, B, C, eps, BLOCK_B: tl.constexpr):
    c = tl.program_id(0)
    rows = tl.arange(0, BLOCK_B)
    mask = rows < B
    x = tl.load(x_ptr + rows * C + c, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / B
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / B
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + c) + tl.load(b_ptr + c)
    tl.store(out_ptr + rows * C + c, y, mask=mask)


class ModelNew(nn.Module):
    """Training-mode BatchNorm1d with the right output that never updates the running statistics:
    not a drop-in (after .eval() it would normalize with stale ones)."""

    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        x = x.contiguous()
        B, C = x.shape
        out = torch.empty_like(x)
        batchnorm_train_kernel[(C,)](x, self.bn.weight, self.bn.bias, out, B, C, self.bn.eps,
                                     BLOCK_B=triton.next_power_of_2(B))
        return out
