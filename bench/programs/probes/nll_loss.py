import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, t):
        return torch.nn.functional.nll_loss(torch.log_softmax(x, 1), t)


def get_inputs():
    return [torch.randn(8, 10), torch.randint(0, 10, (8,))]


def get_init_inputs():
    return []
