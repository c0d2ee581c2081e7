"""MaxPool3d with a 3x3x3 window, stride 2 and padding 1 on a volumetric feature map."""
import torch
import torch.nn as nn

batch_size = 16
channels = 32
depth = 64
height = 64
width = 64

SMALL = {"batch_size": 2, "channels": 2, "depth": 5, "height": 6, "width": 5}


class Model(nn.Module):
    def __init__(self, kernel_size, stride, padding):
        super().__init__()
        self.pool = nn.MaxPool3d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return [3, 2, 1]
