import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Bilinear(5, 6, 7)

    def forward(self, x, y):
        return self.b(x, y)


def get_inputs():
    return [torch.randn(4, 5), torch.randn(4, 6)]


def get_init_inputs():
    return []
