"""Conv3d, divide, MaxPool3d, global average pool, bias, sum over channels."""
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

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 4, "depth": 6, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divisor, pool_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.divisor = divisor
        self.max_pool = nn.MaxPool3d(pool_size)
        self.global_avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.conv(x) / self.divisor
        x = self.max_pool(x)
        x = self.global_avg_pool(x)
        x = x + self.bias
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, 2.0, (2, 2, 2), (out_channels, 1, 1, 1)]
