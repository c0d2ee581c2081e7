import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        v, m = torch.var_mean(x, dim=1, unbiased=False)
        return v + m


def get_inputs():
    return [torch.randn(4, 9)]


def get_init_inputs():
    return []
