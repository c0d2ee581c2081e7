"""ConvTranspose2d with output_padding, Mish, add a constant, HardTanh, scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 64
out_channels = 64
height = 64
width = 64
kernel_size = 3
stride = 2
padding = 1

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 4, "width": 5}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, add_value, scale):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride, padding, output_padding)
        self.add_value = add_value
        self.scale = scale

    def forward(self, x):
        x = F.mish(self.conv_transpose(x))
        x = x + self.add_value
        x = F.hardtanh(x, min_val=-1, max_val=1)
        return x * self.scale


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, 1, 0.5, 2.0]
