import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.nn.functional.pad(x, (1, 2, 2, 1), mode='circular')


def get_inputs():
    return [torch.randn(2, 3, 5, 6)]


def get_init_inputs():
    return []
