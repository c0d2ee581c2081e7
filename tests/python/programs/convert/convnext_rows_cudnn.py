"""A ConvNeXt block at the default knobs: cuDNN's 7x7 depthwise convolution, channels-last
(layout=auto counts the LayerNorm and linear layers on x.permute(0, 2, 3, 1) as reading rows
of channels, that permute being the convolution's memory in order), then LayerNorm, a linear
layer, GELU, a linear layer, a scale and the residual through permute(0, 3, 1, 2).
# CHECK-COUNT-1: F.conv2d(
# CHECK: .contiguous(memory_format=torch.channels_last)
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.dwconv = nn.Conv2d(channels, channels, 7, padding=3, groups=channels)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.pwconv1 = nn.Linear(channels, hidden)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(hidden, channels)
        self.gamma = nn.Parameter(0.5 * torch.ones(channels))

    def forward(self, x):
        y = self.norm(self.dwconv(x).permute(0, 2, 3, 1))
        y = self.gamma * self.pwconv2(self.act(self.pwconv1(y)))
        return x + y.permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(2, 32, 6, 5)]


def get_init_inputs():
    return [32, 64]
