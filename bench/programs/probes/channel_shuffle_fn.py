import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.nn.functional.channel_shuffle(x, 2)


def get_inputs():
    return [torch.randn(2, 4, 3, 3)]


def get_init_inputs():
    return []
