"""Conv2d, BatchNorm2d, scale, clamp to [0, 6] (ReLU6 written as a clamp)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 64
out_channels = 128
height = 64
width = 64
kernel_size = 3

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 8, "width": 8}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scale):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-3)
        self.scale = scale

    def forward(self, x):
        x = self.bn(self.conv(x)) * self.scale
        return torch.clamp(x, 0.0, 6.0)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, 0.75]
