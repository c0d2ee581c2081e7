"""ResNet-50 bottleneck block: 1x1 reduce, 3x3, 1x1 expand (x4), identity shortcut."""
import torch
import torch.nn as nn

batch_size = 64
planes = 64
height = 56
width = 56

SMALL = {"batch_size": 2, "planes": 2, "height": 5, "width": 5}


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + x)


class Model(nn.Module):
    def __init__(self, planes):
        super().__init__()
        self.block = Bottleneck(planes * Bottleneck.expansion, planes)

    def forward(self, x):
        return self.block(x)


def get_inputs():
    return [torch.randn(batch_size, planes * 4, height, width)]


def get_init_inputs():
    return [planes]
