"""Depthwise 1-d convolution (groups = channels) of kernel 5 over long sequences, with a bias."""
import torch
import torch.nn as nn

batch_size = 64
channels = 256
length = 4096

SMALL = {"batch_size": 2, "channels": 4, "length": 17}


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size=5, padding=2, groups=channels)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [channels]
