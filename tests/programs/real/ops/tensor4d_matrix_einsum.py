"""4-D tensor-matrix product over the last axis: C[b,i,j,k] = sum_l A[b,i,j,l] * B[l,k]."""
import torch
import torch.nn as nn

b = 8
i = 256
j = 32
l = 256
k = 768

SMALL = {"b": 2, "i": 4, "j": 3, "l": 8, "k": 5}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.einsum("bijl,lk->bijk", A, B)


def get_inputs():
    return [torch.randn(b, i, j, l), torch.randn(l, k)]


def get_init_inputs():
    return []
