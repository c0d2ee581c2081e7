import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        y = x[0]
        return torch.relu(y)


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
