import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)

    def forward(self, x):
        return self.m(x)


def get_inputs():
    return [torch.randn(2, 2, 7, 8, 9)]


def get_init_inputs():
    return []
