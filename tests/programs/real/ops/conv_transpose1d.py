"""ConvTranspose1d upsampling by 2 (kernel 4, stride 2, padding 1)."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 128
out_channels = 64
length = 4096

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "length": 8}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size=4, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
