"""Integers beside floats: a masked mean over a count clamped to at least one (an integer
clamp, its bounds printed as integers so the count stays int64), float arithmetic with an
integer operand (PyTorch's promotion: import casts the integer one first), and the indices of
torch.max / torch.min over a dim (argmax / argmin: the first extreme's).
# CHECK: , 1, propagate_nan=tl.PropagateNan.ALL)
# CHECK-NOT: F.
"""
import torch
import torch.nn as nn

batch = 6
features = 9


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        mask = x > 0.5
        count = mask.sum(1).clamp(min=1)
        mean = (x * mask).sum(1) / count
        top, where = torch.max(x, dim=1)
        low, at = x.min(dim=1, keepdim=True)
        shifted = x + at - where.unsqueeze(1)
        return mean, count, idx.clamp(max=7), torch.clamp(idx, 2, 5), top * where, low, shifted


def get_inputs():
    return [torch.randn(batch, features), torch.randint(0, 10, (batch, 4))]


def get_init_inputs():
    return []
