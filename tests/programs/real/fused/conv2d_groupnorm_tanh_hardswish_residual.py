"""Conv2d, GroupNorm, tanh, HardSwish, a residual add of the conv output, log-sum-exp over channels."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 8
out_channels = 64
height = 128
width = 128
kernel_size = 3
groups = 16

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 8, "width": 8, "groups": 2}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.group_norm = nn.GroupNorm(groups, out_channels)
        self.tanh = nn.Tanh()
        self.hard_swish = nn.Hardswish()

    def forward(self, x):
        x_conv = self.conv(x)
        x_norm = self.group_norm(x_conv)
        x_act = self.hard_swish(self.tanh(x_norm))
        x_res = x_conv + x_act
        return torch.logsumexp(x_res, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, groups]
