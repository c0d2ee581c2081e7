import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = nn.GroupNorm(4, 8)

    def forward(self, x):
        return self.n(x)


def get_inputs():
    return [torch.randn(2, 8, 3, 5)]


def get_init_inputs():
    return []
