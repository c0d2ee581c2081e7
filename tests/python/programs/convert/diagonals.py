"""Diagonals, composed at import (ir/pytorch_decompose.cpp): torch.diagonal over any two dims
and at an offset, torch.diag of a matrix, torch.trace. Each is the matrices masked to the
diagonal (tril of triu) and summed across it, a slice from the end cutting a diagonal shorter
than its dim (square matrices: the cut follows their size); the sizes are module constants,
so the verifier's varied sizes move them.
# CHECK-NOT: torch.diagonal
# CHECK-NOT: torch.trace
"""
import torch
import torch.nn as nn

batch = 3
n = 5
rows, cols = 7, 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, a, w):
        main = torch.diagonal(x, dim1=1, dim2=2).sum(1) + torch.trace(a)
        upper = torch.diagonal(x, offset=2, dim1=-1, dim2=-2)
        bands = torch.diag(a, 1) + torch.diag(a, -1)
        tall = torch.diagonal(w, 0, 1, 2) + 1
        first = torch.diagonal(w, 0, 0, 1)
        return main, upper, bands, tall, first


def get_inputs():
    return [torch.randn(batch, n, n), torch.randn(n, n), torch.randn(batch, rows, cols)]


def get_init_inputs():
    return []
