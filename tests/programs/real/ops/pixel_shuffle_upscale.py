"""A convolution to 4x the channels, then pixel shuffle by 2 (sub-pixel upscaling)."""
import torch
import torch.nn as nn

batch_size = 16
channels = 64
height = 128
width = 128

SMALL = {"batch_size": 2, "channels": 4, "height": 6, "width": 5}


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels * 4, 3, padding=1)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        return torch.relu(self.shuffle(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels]
