import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.nn.functional.interpolate(x, size=(9, 11), mode='bilinear', align_corners=True)


def get_inputs():
    return [torch.randn(2, 3, 5, 6)]


def get_init_inputs():
    return []
