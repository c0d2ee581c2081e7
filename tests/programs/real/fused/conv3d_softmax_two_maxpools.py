"""Conv3d, softmax over channels, two MaxPool3d layers."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
in_channels = 3
out_channels = 16
depth = 16
height = 64
width = 64
kernel_size = 3

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 4, "depth": 6, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, pool_kernel_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.pool1 = nn.MaxPool3d(pool_kernel_size)
        self.pool2 = nn.MaxPool3d(pool_kernel_size)

    def forward(self, x):
        x = torch.softmax(self.conv(x), dim=1)
        return self.pool2(self.pool1(x))


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, 2]
