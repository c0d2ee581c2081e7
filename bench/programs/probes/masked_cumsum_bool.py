import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, mask):
        return torch.cumsum(x * mask, dim=1)


def get_inputs():
    return [torch.randn(4, 9), torch.rand(4, 9) > 0.5]


def get_init_inputs():
    return []
