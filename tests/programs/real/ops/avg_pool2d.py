"""AvgPool2d 2x2 with stride 2 (a DenseNet transition-layer downsample)."""
import torch
import torch.nn as nn

batch_size = 64
channels = 128
height = 128
width = 128

SMALL = {"batch_size": 2, "channels": 3, "height": 6, "width": 8}


class Model(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [2]
