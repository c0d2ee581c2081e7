import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return (x > 0).any(dim=1).float() + (x > -1).all(dim=1).float()


def get_inputs():
    return [torch.randn(4, 9)]


def get_init_inputs():
    return []
