"""A ConvNeXt block runs its LayerNorm and linear layers on rows of channels:
x.permute(0, 2, 3, 1) of a depthwise convolution, and back with permute(0, 3, 1, 2). The
convolution is written channels-last by a kernel over tiles of channels by positions (its
loads run along the positions, its stores along the channels) and seen through the permute;
the residual add reads the linear layer's rows back in tiles too, not a channel's plane apart.
# KNOB: depthwise=triton
# CHECK-COUNT-2: BLOCK_C=BLOCK_C
# CHECK: .permute(0, 2, 3, 1)
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.dwconv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.pwconv = nn.Linear(channels, channels)

    def forward(self, x):
        y = self.norm(self.dwconv(x).permute(0, 2, 3, 1))
        return x + self.pwconv(y).permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(2, 8, 5, 6)]


def get_init_inputs():
    return [8]
