"""Elementwise math: a blend of exp, log, sqrt, rsqrt, erf, sin, cos and reciprocal."""
import torch
import torch.nn as nn

batch_size = 2048
dim = 16384

SMALL = {"batch_size": 4, "dim": 64}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = torch.abs(x) + 1.0
        y = torch.log(a) + torch.sqrt(a) - torch.rsqrt(a)
        y = y + torch.erf(x) * torch.exp(-a)
        y = y + torch.sin(x) * torch.cos(x) + torch.reciprocal(a)
        return -y + torch.square(x) * 0.1 + torch.pow(x, 3) * 0.01


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
