"""ConvTranspose2d, GELU, GroupNorm."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 64
out_channels = 64
height = 64
width = 64
kernel_size = 4
stride = 2
padding = 1
groups = 8

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 4, "width": 5, "groups": 2}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, groups):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.group_norm = nn.GroupNorm(num_groups=groups, num_channels=out_channels)

    def forward(self, x):
        return self.group_norm(F.gelu(self.conv_transpose(x)))


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, groups]
