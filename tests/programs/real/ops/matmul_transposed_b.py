"""Matrix multiplication against a transposed right operand, C = A @ B^T (torch.matmul + .t())."""
import torch
import torch.nn as nn

M = 4096
K = 2048
N = 1024

SMALL = {"M": 8, "K": 16, "N": 8}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B.t())


def get_inputs():
    return [torch.randn(M, K), torch.randn(N, K)]


def get_init_inputs():
    return []
