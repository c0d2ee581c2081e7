"""Conv2d + bias + ReLU on ragged sizes (issue 16): 5 input channels, 12 output channels,
a 13x11 map, stride 2 (test_convert_layout.py converts it in both layouts)."""
import torch
import torch.nn as nn

batch = 3
in_channels = 5
channels = 12
height, width = 13, 11


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, stride=2, padding=1)
        self.bias = nn.Parameter(torch.randn(channels, 1, 1) * 0.1)

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels]
