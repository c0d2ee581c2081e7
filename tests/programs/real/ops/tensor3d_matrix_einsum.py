"""3-D tensor times matrix: every (N, M, K) slice multiplied by a (K, L) matrix via einsum."""
import torch
import torch.nn as nn

N = 16
M = 1024
K = 2048
L = 768

SMALL = {"N": 2, "M": 8, "K": 16, "L": 4}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.einsum("nmk,kl->nml", A, B)


def get_inputs():
    return [torch.randn(N, M, K), torch.randn(K, L)]


def get_init_inputs():
    return []
