"""Products with a vector's diagonal matrix are broadcast products, composed at import
(ir/pytorch_import.cpp, `diagonal_vector`): diag(a) @ B is a[:, None] * B and C @ diag(w)
is C * w (batched C too), exact where the GEMM would sum n - 1 zeros to each product. The
diagonal matrix is not built; it is where something else reads it (a sum here: the product
C @ d stays one), and of two diagonal operands the first is (diag(a) @ diag(w + 1) is
diag(a) * (w + 1)).
# CHECK-NOT: tl.dot(
# CHECK-COUNT-1: torch.matmul(
"""
import torch
import torch.nn as nn

n = 6
m = 5


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c, w):
        d = torch.diag(w)
        both = torch.diag(a) @ torch.diag(w + 1)
        return torch.diag(a) @ b, c @ d, d.sum(), both


def get_inputs():
    return [torch.randn(n), torch.randn(n, m), torch.randn(3, m, n), torch.randn(n)]


def get_init_inputs():
    return []
