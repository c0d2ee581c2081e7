"""Grouped ConvTranspose2d (4 groups) with dilation 2 and no bias."""
import torch
import torch.nn as nn

batch_size = 32
in_channels = 64
out_channels = 128
height = 64
width = 64

SMALL = {"batch_size": 2, "in_channels": 4, "out_channels": 8, "height": 5, "width": 5}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=3, stride=1, padding=2, dilation=2, groups=4, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
