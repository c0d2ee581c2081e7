"""Matrix multiplication with both operands transposed, C = A^T @ B^T."""
import torch
import torch.nn as nn

M = 1024
K = 4096
N = 2048

SMALL = {"M": 8, "K": 16, "N": 12}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.transpose(0, 1), B.transpose(0, 1))


def get_inputs():
    return [torch.randn(K, M), torch.randn(N, K)]


def get_init_inputs():
    return []
