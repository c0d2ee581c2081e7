"""Depthwise 3x3 convolution of an RGB-sized image batch: three channels, large maps."""
import torch
import torch.nn as nn

batch_size = 16
channels = 3
height = 512
width = 512

SMALL = {"batch_size": 2, "channels": 3, "height": 9, "width": 8}


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1, groups=channels, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels]
