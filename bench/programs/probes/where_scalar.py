import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.where(x > 0, x, 0.1 * x)


def get_inputs():
    return [torch.randn(4, 9)]


def get_init_inputs():
    return []
