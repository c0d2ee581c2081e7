import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.nn.functional.softmin(x, dim=1)


def get_inputs():
    return [torch.randn(4, 33)]


def get_init_inputs():
    return []
