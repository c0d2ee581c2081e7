"""ConvTranspose2d with stride 2, padding 1 and output_padding 1 (a decoder upsample)."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 128
out_channels = 64
height = 64
width = 64

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 4, "width": 5}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
