import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return x / torch.norm(x, p='fro')


def get_inputs():
    return [torch.randn(2, 3, 4, 4)]


def get_init_inputs():
    return []
