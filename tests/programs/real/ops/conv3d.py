"""Conv3d 3x3x3 with padding 1 on a video clip volume."""
import torch
import torch.nn as nn

batch_size = 16
in_channels = 32
out_channels = 64
depth = 16
height = 64
width = 64

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 3, "depth": 4, "height": 5, "width": 4}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
