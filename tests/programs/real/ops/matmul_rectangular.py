"""Rectangular matrix multiplication with a long reduction dimension (M x K) @ (K x N)."""
import torch
import torch.nn as nn

M = 2048
K = 8192
N = 1024

SMALL = {"M": 16, "K": 32, "N": 8}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return A @ B


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
