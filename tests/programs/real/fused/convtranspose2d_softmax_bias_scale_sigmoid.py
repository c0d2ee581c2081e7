"""ConvTranspose2d, softmax over channels, bias, scale, sigmoid."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
in_channels = 64
out_channels = 128
height = 64
width = 64
kernel_size = 4
stride = 2
padding = 1

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "height": 4, "width": 5}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, bias_shape, scaling_factor):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, output_padding=output_padding)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.softmax(self.conv_transpose(x), dim=1)
        x = x + self.bias
        x = x * self.scaling_factor
        return torch.sigmoid(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding, 1, (out_channels, 1, 1), 2.0]
