"""Square single-precision matrix multiplication, C = A @ B."""
import torch
import torch.nn as nn

N = 4096

SMALL = {"N": 16}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
