"""Batched matrix multiplication with torch.bmm."""
import torch
import torch.nn as nn

batch_size = 128
m = 512
k = 256
n = 512

SMALL = {"batch_size": 2, "m": 8, "k": 16, "n": 8}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.bmm(A, B)


def get_inputs():
    return [torch.randn(batch_size, m, k), torch.randn(batch_size, k, n)]


def get_init_inputs():
    return []
