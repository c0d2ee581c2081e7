"""Conv2d with an asymmetric 3x5 kernel, asymmetric padding and dilation (2, 1)."""
import torch
import torch.nn as nn

batch_size = 32
in_channels = 64
out_channels = 128
height = 64
width = 128

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 7, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=(3, 5), padding=(2, 2), dilation=(2, 1))

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
