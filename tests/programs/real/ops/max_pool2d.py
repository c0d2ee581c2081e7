"""MaxPool2d 3x3, stride 2, padding 1: the ResNet stem pooling."""
import torch
import torch.nn as nn

batch_size = 64
channels = 64
height = 112
width = 112

SMALL = {"batch_size": 2, "channels": 3, "height": 9, "width": 8}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
