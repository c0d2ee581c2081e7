"""Grouped 3x3 convolution (8 groups) with stride 2, ResNeXt style."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 128
out_channels = 256
height = 56
width = 56

SMALL = {"batch_size": 2, "in_channels": 8, "out_channels": 8, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=2, padding=1, groups=8)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
