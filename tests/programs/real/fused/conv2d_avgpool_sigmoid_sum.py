"""Conv2d, AvgPool2d, sigmoid, then a sum over channels and space (one value per sample)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 16
out_channels = 64
height = 256
width = 256
kernel_size = 3

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 8, "width": 8}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.avg_pool = nn.AvgPool2d(pool_kernel_size)

    def forward(self, x):
        x = self.avg_pool(self.conv(x))
        x = torch.sigmoid(x)
        return torch.sum(x, dim=[1, 2, 3])


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, 4]
