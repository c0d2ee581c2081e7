"""Batched products whose right operand is stored row-major (N contiguous): TF32 tensor-core
products take K-major operands only, so the Triton GEMM reads a K-major copy of it, written
first, through TMA, with the left operand's rows of all batch entries in one descriptor
(rows past each entry's 13 are another entry's, never stored). One right operand is shared
by the batch, one has a batch of its own; K is 40 (rows of 160 bytes) and no size is a
multiple of a tile.
# KNOB: gemm=triton
# CHECK-COUNT-2: _k_major[
# CHECK: a = a_desc.load([tl.program_id(1) * M + m0, k0])
# CHECK: b = b_desc.load([tl.program_id(1) * N + n0, k0]).T
# CHECK: b = b_desc.load([n0, k0]).T
"""
import torch
import torch.nn as nn

batch = 3
rows = 13
inner = 40
cols = 19


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(inner, cols) * 0.1)

    def forward(self, a, b):
        shared = torch.matmul(a, self.weight)
        own = torch.bmm(a, b)
        return torch.relu(shared) + own


def get_inputs():
    return [torch.randn(batch, rows, inner), torch.randn(batch, inner, cols)]


def get_init_inputs():
    return []
