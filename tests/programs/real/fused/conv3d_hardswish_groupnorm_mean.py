"""Conv3d, HardSwish, GroupNorm, mean over space."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
in_channels = 16
out_channels = 32
depth = 16
height = 64
width = 64
kernel_size = 3
num_groups = 4

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 4, "depth": 4, "height": 6, "width": 6, "num_groups": 2}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        x = F.hardswish(self.conv(x))
        x = self.group_norm(x)
        return torch.mean(x, dim=[2, 3, 4])


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, num_groups]
