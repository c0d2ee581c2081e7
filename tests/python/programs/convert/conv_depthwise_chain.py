"""A depthwise conv (groups = channels) on a pointwise conv's ReLU, then a softmax over the
channels (issue 16): the second convolution takes a kernel's output, so in the channels-last
layout that kernel writes NHWC; 6 channels over an 11x9 map."""
import torch
import torch.nn as nn

batch = 2
in_channels = 3
channels = 6
height, width = 11, 9


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.pointwise = nn.Conv2d(in_channels, channels, 1)
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)

    def forward(self, x):
        return torch.softmax(self.depthwise(torch.relu(self.pointwise(x))), dim=1)


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels]
