"""ConvNeXt-style block: depthwise 7x7 conv, LayerNorm on channels-last, pointwise MLP with GELU, residual."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
in_channels = 96
out_channels = 384
height = 56
width = 56
kernel_size = 7

SMALL = {"batch_size": 2, "in_channels": 4, "out_channels": 16, "height": 8, "width": 8}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.dwconv = nn.Conv2d(in_channels, in_channels, kernel_size, padding=kernel_size // 2, groups=in_channels)
        self.norm = nn.LayerNorm(in_channels, eps=1e-6)
        self.pwconv1 = nn.Linear(in_channels, out_channels)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(out_channels, in_channels)
        self.gamma = nn.Parameter(1e-6 * torch.ones(in_channels))

    def forward(self, x):
        shortcut = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)
        x = self.norm(x)
        x = self.pwconv2(self.act(self.pwconv1(x)))
        x = self.gamma * x
        return shortcut + x.permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
