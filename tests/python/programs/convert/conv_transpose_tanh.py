"""ConvTranspose2d + tanh + scale on ragged sizes (issue 16): stride 2 with output padding,
7 to 10 channels over a 5x6 map."""
import torch
import torch.nn as nn

batch = 2
in_channels = 7
channels = 10
height, width = 5, 6


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, channels, 3, stride=2, padding=1,
                                         output_padding=1)

    def forward(self, x):
        return torch.tanh(self.deconv(x)) * 1.5


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels]
