"""Conv3d + BatchNorm3d + ReLU on ragged sizes (issue 16): 6 channels over a 5x7x6 volume,
training mode (batch statistics and running buffers)."""
import torch
import torch.nn as nn

batch = 2
in_channels = 3
channels = 6
depth, height, width = 5, 7, 6


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm3d(channels)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, channels]
