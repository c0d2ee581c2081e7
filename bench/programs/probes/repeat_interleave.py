import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return x.repeat(2, 3) + x.repeat_interleave(2, dim=0).repeat_interleave(3, dim=1)


def get_inputs():
    return [torch.randn(4, 5)]


def get_init_inputs():
    return []
