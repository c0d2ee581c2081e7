"""Mean squared error, written as torch.mean((predictions - targets) ** 2)."""
import torch
import torch.nn as nn

batch_size = 32768
dim = 4096

SMALL = {"batch_size": 4, "dim": 16}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.mean((predictions - targets) ** 2)


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
