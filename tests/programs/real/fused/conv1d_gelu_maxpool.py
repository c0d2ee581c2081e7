"""Conv1d, GELU, MaxPool1d: a 1-D CNN feature extractor stage for signals."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 64
out_channels = 128
length = 8192
kernel_size = 7

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "length": 16}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.pool = nn.MaxPool1d(2)

    def forward(self, x):
        return self.pool(F.gelu(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
