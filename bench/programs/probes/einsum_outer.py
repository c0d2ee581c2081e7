import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, y):
        return torch.einsum('i,j->ij', x, y)


def get_inputs():
    return [torch.randn(7), torch.randn(5)]


def get_init_inputs():
    return []
