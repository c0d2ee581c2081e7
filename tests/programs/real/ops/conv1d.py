"""Conv1d with kernel 5, stride 1, padding 2 over audio-like sequences."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 128
out_channels = 256
length = 4096

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "length": 16}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size=5, padding=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels]
