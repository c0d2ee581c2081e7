"""MobileNetV1-style network: a strided stem and depthwise-separable conv blocks (dw 3x3 + pw 1x1, BN, ReLU)."""
import torch
import torch.nn as nn

batch_size = 32
image_size = 224
width = 32
num_classes = 1000

SMALL = {"batch_size": 2, "image_size": 16, "width": 2, "num_classes": 5}


def conv_bn(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, oup, 3, stride, 1, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))


def conv_dw(inp, oup, stride):
    return nn.Sequential(
        nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False),
        nn.BatchNorm2d(inp),
        nn.ReLU(inplace=True),
        nn.Conv2d(inp, oup, 1, 1, 0, bias=False),
        nn.BatchNorm2d(oup),
        nn.ReLU(inplace=True),
    )


class Model(nn.Module):
    def __init__(self, width, num_classes):
        super().__init__()
        w = width
        self.model = nn.Sequential(
            conv_bn(3, w, 2),
            conv_dw(w, 2 * w, 1),
            conv_dw(2 * w, 4 * w, 2),
            conv_dw(4 * w, 4 * w, 1),
            conv_dw(4 * w, 8 * w, 2),
            conv_dw(8 * w, 8 * w, 1),
            conv_dw(8 * w, 16 * w, 2),
            conv_dw(16 * w, 16 * w, 1),
            conv_dw(16 * w, 32 * w, 2),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32 * w, num_classes)

    def forward(self, x):
        x = self.model(x)
        return self.fc(x.view(x.size(0), -1))


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [width, num_classes]
