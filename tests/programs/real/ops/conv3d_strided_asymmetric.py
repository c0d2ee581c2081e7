"""Conv3d with kernel (3, 5, 5), stride (1, 2, 2) and padding (1, 2, 2)."""
import torch
import torch.nn as nn

batch_size = 16
in_channels = 16
out_channels = 32
depth = 16
height = 128
width = 128

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 3, "depth": 3, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size=(3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2))

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
