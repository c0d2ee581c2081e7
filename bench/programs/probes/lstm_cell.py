import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(5, 7)

    def forward(self, x):
        h, c = self.cell(x)
        return h + c


def get_inputs():
    return [torch.randn(4, 5)]


def get_init_inputs():
    return []
