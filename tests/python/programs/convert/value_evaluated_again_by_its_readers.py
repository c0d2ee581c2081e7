"""A PReLU of a convolution, read by torch.var_mean over the channels and by the
standardization after it, is evaluated again by its readers rather than written first: each
of them loads the convolution's output either way. One kernel after the convolution.
# CHECK-COUNT-1: def k
# CHECK-COUNT-1: _var_rows(
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.act = nn.PReLU(8)

    def forward(self, x):
        y = self.act(self.conv(x))
        var, mean = torch.var_mean(y, dim=1, keepdim=True)
        return (y - mean) * torch.rsqrt(var + 1e-5)


def get_inputs():
    return [torch.randn(2, 3, 6, 5)]


def get_init_inputs():
    return []
