"""Products whose left operand is a transposed view (A^T @ B, and a batched one): the view is
M-contiguous, which TF32 tensor-core products do not take, so the Triton GEMM reads a K-major
copy of it, written first (as it does a row-major right operand's), through TMA. The first
product's right operand is row-major and copied too; the second's is itself a transposed
view, read through TMA from the buffer under it. No size is a multiple of a tile.
# KNOB: gemm=triton
# CHECK-COUNT-3: _k_major[
# CHECK: a = a_desc.load([tl.program_id(1) * M + m0, k0])
# CHECK-COUNT-2: A_DESC, B_DESC = _gemm_tma(
"""
import torch
import torch.nn as nn

batch = 3
inner = 40
rows = 13
cols = 19


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, x, y):
        p = a.transpose(0, 1) @ b
        q = torch.bmm(x.transpose(1, 2), y.transpose(1, 2))
        return torch.relu(p), q


def get_inputs():
    return [torch.randn(inner, rows), torch.randn(inner, cols), torch.randn(batch, inner, rows),
            torch.randn(batch, cols, inner)]


def get_init_inputs():
    return []
