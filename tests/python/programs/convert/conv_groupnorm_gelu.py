"""Conv2d + GroupNorm + GELU on ragged sizes (issue 16): 12 channels in 3 groups over a 9x7
map; the statistics are one pass over the convolution's output, the normalization a second."""
import torch
import torch.nn as nn

batch = 2
in_channels = 4
channels = 12
groups = 3
height, width = 9, 7


class Model(nn.Module):
    def __init__(self, in_channels, channels, groups):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.norm = nn.GroupNorm(groups, channels)

    def forward(self, x):
        return nn.functional.gelu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels, groups]
