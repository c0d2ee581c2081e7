"""Conv3d, a per-channel multiplier, InstanceNorm3d, clamp, multiplier again, max over channels."""
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

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 4, "depth": 4, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, multiplier_shape, clamp_min, clamp_max):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.multiplier = nn.Parameter(torch.randn(multiplier_shape))
        self.instance_norm = nn.InstanceNorm3d(out_channels)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x):
        x = self.conv(x) * self.multiplier
        x = self.instance_norm(x)
        x = torch.clamp(x, self.clamp_min, self.clamp_max)
        x = x * self.multiplier
        return torch.max(x, dim=1)[0]


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, (out_channels, 1, 1, 1), -1.0, 1.0]
