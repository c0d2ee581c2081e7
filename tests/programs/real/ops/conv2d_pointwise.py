"""Pointwise (1x1) convolution expanding channels."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 64
out_channels = 256
height = 56
width = 56

SMALL = {"batch_size": 2, "in_channels": 4, "out_channels": 6, "height": 5, "width": 5}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
