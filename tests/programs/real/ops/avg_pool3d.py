"""AvgPool3d with kernel 3, stride 2, padding 1."""
import torch
import torch.nn as nn

batch_size = 16
channels = 32
depth = 64
height = 64
width = 64

SMALL = {"batch_size": 2, "channels": 2, "depth": 5, "height": 4, "width": 6}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return []
