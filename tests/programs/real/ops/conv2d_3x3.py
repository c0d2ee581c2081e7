"""Conv2d 3x3, stride 1, padding 1 (a ResNet stage-1 convolution)."""
import torch
import torch.nn as nn

batch_size = 64
in_channels = 64
out_channels = 64
height = 112
width = 112

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 6, "width": 7}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
