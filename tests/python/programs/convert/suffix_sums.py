"""Suffix sums, torch.cumsum(x.flip(1), 1).flip(1), are one kernel: the scan reads its tiles
flipped and stores them flipped, rather than leave the last flip a pass of its own. A scan
read by anything besides a flip of its dim (the cumprod, returned too) keeps its own
buffer, and its flip a kernel.
# CHECK-COUNT-3: def k
# CHECK-COUNT-1: _flip(
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        suffix = torch.cumsum(x.flip(1), dim=1).flip(1)
        products = torch.cumprod(y, dim=-1)
        return suffix, products, products.flip(-1)


def get_inputs():
    return [torch.randn(3, 70), torch.rand(2, 5, 9) + 0.5]


def get_init_inputs():
    return []
