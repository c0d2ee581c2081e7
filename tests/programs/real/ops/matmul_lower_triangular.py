"""Lower-triangular matrix product: the operands are masked with tril inside forward."""
import torch
import torch.nn as nn

N = 4096

SMALL = {"N": 16}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.tril(torch.matmul(torch.tril(A), torch.tril(B)))


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
