"""MobileNetV2 inverted residual blocks: 1x1 expand, depthwise 3x3, 1x1 project, ReLU6, residual when shapes match."""
import torch
import torch.nn as nn

batch_size = 64
channels = 32
height = 56
width = 56
expand_ratio = 6

SMALL = {"batch_size": 2, "channels": 2, "height": 6, "width": 6, "expand_ratio": 2}


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden = inp * expand_ratio
        self.use_res_connect = stride == 1 and inp == oup
        self.conv = nn.Sequential(
            nn.Conv2d(inp, hidden, 1, 1, 0, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, oup, 1, 1, 0, bias=False),
            nn.BatchNorm2d(oup),
        )

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class Model(nn.Module):
    def __init__(self, channels, expand_ratio):
        super().__init__()
        self.blocks = nn.Sequential(
            InvertedResidual(channels, channels, 1, expand_ratio),
            InvertedResidual(channels, 2 * channels, 2, expand_ratio),
            InvertedResidual(2 * channels, 2 * channels, 1, expand_ratio),
        )

    def forward(self, x):
        return self.blocks(x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, expand_ratio]
