"""Conv2d producing per-pixel class scores, softmax over the classes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
in_channels = 256
out_channels = 21
height = 128
width = 128
kernel_size = 1

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 8, "width": 8}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.classifier = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return torch.softmax(self.classifier(x), dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
