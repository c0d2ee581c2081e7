"""addmm (a broadcast bias plus a product) and a ReLU: the bias and the ReLU in the GEMM
kernel's epilogue, after a K-major copy of the row-major right operand (TF32 products take
it so).
# KNOB: gemm=triton
# CHECK-COUNT-2: def k
# CHECK-COUNT-1: _k_major[
# CHECK-NOT: torch.mm
"""
import torch
import torch.nn as nn

rows = 11
inner = 40
cols = 23


class Model(nn.Module):
    def __init__(self, inner, cols):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(inner, cols) * inner ** -0.5)
        self.bias = nn.Parameter(torch.randn(cols))

    def forward(self, x):
        return torch.relu(torch.addmm(self.bias, x, self.weight))


def get_inputs():
    return [torch.randn(rows, inner)]


def get_init_inputs():
    return [inner, cols]
