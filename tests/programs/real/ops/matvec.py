"""Matrix-vector product of a wide matrix with a column vector."""
import torch
import torch.nn as nn

M = 2048
K = 131072

SMALL = {"M": 8, "K": 64}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, 1)]


def get_init_inputs():
    return []
