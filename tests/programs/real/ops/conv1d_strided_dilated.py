"""Conv1d with stride 2 and dilation 3, no bias."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 64
out_channels = 128
length = 16384

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "length": 20}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=3, stride=2, dilation=3, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
