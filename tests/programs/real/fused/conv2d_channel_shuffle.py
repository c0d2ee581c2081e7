"""ShuffleNet unit core: grouped 1x1 conv, BatchNorm, ReLU, channel shuffle via view/transpose."""
import torch
import torch.nn as nn

batch_size = 64
channels = 240
height = 56
width = 56
groups = 3

SMALL = {"batch_size": 2, "channels": 6, "height": 4, "width": 5}


class Model(nn.Module):
    def __init__(self, channels, groups):
        super().__init__()
        self.groups = groups
        self.conv = nn.Conv2d(channels, channels, kernel_size=1, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        b, c, h, w = x.size()
        x = x.view(b, self.groups, c // self.groups, h, w)
        x = x.transpose(1, 2).contiguous()
        return x.view(b, -1, h, w)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, groups]
