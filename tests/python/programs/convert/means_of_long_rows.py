"""Means of long rows of normal values (a batch norm over 4,096 samples, a mean beside a
variance): each lane's first value, its Welford shift, lies about one std from the mean, and
a mean rebuilt from the shifts carries the rounding of every update of a running mean that
size, far above the mean's own (a batch norm's running mean was rejected on an H200 for it).
The means come from compensated sums. test_convert_numerics.py holds the outputs and the
running statistics to a float64 truth.
"""
import torch
import torch.nn as nn

batch = 4096
features = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(features)

    def forward(self, x):
        rows = x.t()
        return self.norm(x), torch.mean(rows, dim=1), torch.var(rows, dim=1)


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return []
