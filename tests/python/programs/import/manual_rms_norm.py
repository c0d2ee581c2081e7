import torch
import torch.nn as nn


class Model(nn.Module):
    """RMS norm written out by hand, then a softmax over the last dim."""

    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(2, 6, 32)]


def get_init_inputs():
    return [1e-6]
