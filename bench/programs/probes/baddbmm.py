import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, c, a, b):
        return torch.baddbmm(c, a, b, beta=0.5, alpha=2.0)


def get_inputs():
    return [torch.randn(2,4,6), torch.randn(2,4,5), torch.randn(2,5,6)]


def get_init_inputs():
    return []
