"""Left multiplication by a diagonal matrix built from a vector: diag(a) @ B."""
import torch
import torch.nn as nn

N = 4096
M = 4096

SMALL = {"N": 8, "M": 12}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, B):
        return torch.diag(a) @ B


def get_inputs():
    return [torch.randn(N), torch.randn(N, M)]


def get_init_inputs():
    return []
