"""Product over the first dimension, on values near 1 so the product stays finite."""
import torch
import torch.nn as nn

batch_size = 128
dim1 = 4096
dim2 = 1024

SMALL = {"batch_size": 2, "dim1": 8, "dim2": 6}


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.prod(1.0 + 0.01 * x, dim=self.dim)


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [0]
