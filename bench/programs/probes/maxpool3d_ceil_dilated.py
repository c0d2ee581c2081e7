import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.MaxPool3d(3, stride=2, padding=1, dilation=2, ceil_mode=True)

    def forward(self, x):
        return self.m(x)


def get_inputs():
    return [torch.randn(2, 2, 9, 9, 9)]


def get_init_inputs():
    return []
