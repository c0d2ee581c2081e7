import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.gn = nn.GroupNorm(4, 8)
        self.scale = nn.Parameter(torch.ones(8, 1, 1))
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        x = self.gn(self.conv(x)) * self.scale
        return torch.clamp(self.pool(x), 0.0, 1.0)


def get_inputs():
    return [torch.randn(2, 3, 10, 10)]


def get_init_inputs():
    return []
