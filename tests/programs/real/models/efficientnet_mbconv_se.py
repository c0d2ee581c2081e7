"""EfficientNet MBConv block with squeeze-and-excitation and SiLU: expand, depthwise, SE gate, project, residual."""
import torch
import torch.nn as nn

batch_size = 64
channels = 40
height = 56
width = 56
expand_ratio = 6
se_ratio = 0.25

SMALL = {"batch_size": 2, "channels": 4, "height": 6, "width": 6, "expand_ratio": 2}


class SqueezeExcite(nn.Module):
    def __init__(self, channels, squeezed):
        super().__init__()
        self.reduce = nn.Conv2d(channels, squeezed, 1)
        self.expand = nn.Conv2d(squeezed, channels, 1)
        self.act = nn.SiLU()

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        s = self.expand(self.act(self.reduce(s)))
        return x * torch.sigmoid(s)


class Model(nn.Module):
    def __init__(self, channels, expand_ratio, se_ratio):
        super().__init__()
        hidden = channels * expand_ratio
        squeezed = max(1, int(channels * se_ratio))
        self.expand = nn.Sequential(nn.Conv2d(channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.SiLU())
        self.depthwise = nn.Sequential(
            nn.Conv2d(hidden, hidden, 5, padding=2, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.SiLU())
        self.se = SqueezeExcite(hidden, squeezed)
        self.project = nn.Sequential(nn.Conv2d(hidden, channels, 1, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        y = self.expand(x)
        y = self.depthwise(y)
        y = self.se(y)
        y = self.project(y)
        return x + y


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, expand_ratio, se_ratio]
