"""A Linear and a GELU through the Triton GEMM under a small explicit tile (gemm_tile): 16 x 32
tiles with K steps of 16, so the K loop runs three times and the last row and column tiles
are partial.
# KNOB: gemm=triton
# KNOB: gemm_tile=16x32x16
# CHECK: block_m = min(16,
# CHECK: block_n = min(32,
# CHECK: block_k = min(16,
# CHECK-NOT: F.linear
"""
import torch
import torch.nn as nn

rows = 70
inner = 48
cols = 40


class Model(nn.Module):
    def __init__(self, inner, cols):
        super().__init__()
        self.fc = nn.Linear(inner, cols)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(rows, inner)]


def get_init_inputs():
    return [inner, cols]
