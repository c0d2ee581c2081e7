import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.pool = nn.AvgPool2d(2)

    def forward(self, x):
        x = torch.sigmoid(self.pool(self.conv(x)))
        return torch.sum(x, dim=[1, 2, 3])


def get_inputs():
    return [torch.randn(2, 3, 10, 10)]


def get_init_inputs():
    return []
