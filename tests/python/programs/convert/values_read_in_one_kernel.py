"""A value that several elementwise operators read, all of them on the way to the program's
one output, is evaluated inside that output's kernel (once an element), not written first:
|x| + 1 read by a log, a square root and a reciprocal. One kernel, one load of x.
# CHECK-COUNT-1: def k
# CHECK-COUNT-1: tl.load(
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        a = torch.abs(x) + 1.0
        return torch.log(a) + torch.sqrt(a) * torch.exp(-a) + torch.reciprocal(a)


def get_inputs():
    return [torch.randn(6, 40)]


def get_init_inputs():
    return []
