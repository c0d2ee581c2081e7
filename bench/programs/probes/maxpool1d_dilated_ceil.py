import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.MaxPool1d(4, stride=3, padding=2, dilation=2, ceil_mode=True)

    def forward(self, x):
        return self.m(x)


def get_inputs():
    return [torch.randn(2, 3, 20)]


def get_init_inputs():
    return []
