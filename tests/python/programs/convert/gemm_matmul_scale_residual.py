"""A matmul, a scale and a residual add, and a batched matmul whose right operand (a matrix)
broadcasts over the batch, then tanh: each one GEMM kernel with its chain inside, after a
K-major copy of its row-major right operand (TF32 products take it so; rows of 33 fp32 are
no 16-byte multiple, so the kernels' pointer loads read the copies, not TMA).
# KNOB: gemm=triton
# CHECK-COUNT-4: def k
# CHECK-COUNT-2: _k_major[
# CHECK-NOT: torch.matmul
"""
import torch
import torch.nn as nn

rows = 21
inner = 33
cols = 17
batch = 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, r, c):
        y = torch.matmul(a, b) * 0.5 + r
        z = torch.tanh(torch.matmul(c, b))
        return y, z


def get_inputs():
    return [torch.randn(rows, inner), torch.randn(inner, cols), torch.randn(rows, cols),
            torch.randn(batch, rows, inner)]


def get_init_inputs():
    return []
