"""Conv3d without bias, BatchNorm3d, ReLU: a 3-D CNN stage."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
in_channels = 16
out_channels = 32
depth = 16
height = 64
width = 64
kernel_size = 3

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 4, "depth": 4, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=1, bias=False)
        self.bn = nn.BatchNorm3d(out_channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
