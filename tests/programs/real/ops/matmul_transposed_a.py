"""Matrix multiplication with a transposed left operand, C = A.T @ B."""
import torch
import torch.nn as nn

M = 2048
K = 4096
N = 2048

SMALL = {"M": 16, "K": 8, "N": 16}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return A.T @ B


def get_inputs():
    return [torch.randn(K, M), torch.randn(K, N)]


def get_init_inputs():
    return []
