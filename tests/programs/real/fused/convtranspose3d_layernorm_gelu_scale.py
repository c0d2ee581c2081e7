"""ConvTranspose3d, LayerNorm over the last dimension, GELU, scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
in_channels = 32
out_channels = 64
depth = 16
height = 32
width = 32
kernel_size = 4
stride = 2
padding = 1

SMALL = {"batch_size": 2, "in_channels": 2, "out_channels": 3, "depth": 3, "height": 4, "width": 4}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, eps, scaling_factor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.layer_norm = nn.LayerNorm(width * stride, eps=eps)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.conv_transpose(x)
        x = self.layer_norm(x)
        x = F.gelu(x)
        return x * self.scaling_factor


def get_inputs():
    return [torch.randn(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, 1e-5, 1.0]
