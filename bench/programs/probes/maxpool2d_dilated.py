import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.MaxPool2d(3, stride=2, padding=1, dilation=2)

    def forward(self, x):
        return self.m(x)


def get_inputs():
    return [torch.randn(2, 3, 11, 11)]


def get_init_inputs():
    return []
