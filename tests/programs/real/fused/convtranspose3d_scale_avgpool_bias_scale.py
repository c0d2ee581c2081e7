"""ConvTranspose3d, scale, AvgPool3d, bias, scale again."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
in_channels = 32
out_channels = 16
depth = 16
height = 32
width = 32
kernel_size = 3
stride = 2
padding = 1

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 3, "depth": 4, "height": 4, "width": 4}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, scale1, bias_shape, scale2):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.scale1 = nn.Parameter(torch.tensor(scale1))
        self.avg_pool = nn.AvgPool3d(kernel_size=2)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scale2 = nn.Parameter(torch.tensor(scale2))

    def forward(self, x):
        x = self.conv_transpose(x) * self.scale1
        x = self.avg_pool(x)
        x = x + self.bias
        return x * self.scale2


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, 0.5, (out_channels, 1, 1, 1), 1.0]
