"""A layer norm feeding Linears: where the product spans more than one tile of columns, the
normalized rows are written first (their input, two statistics, a weight and a bias loaded
in the K loop would take its pipeline stages, and be recomputed by every column tile); a
Linear of few columns still reads the layer norm as it loads its operand. Ragged sizes."""
# KNOB: gemm=triton
# CHECK-COUNT-1: _layer_norm(
# CHECK: def k2_linear(buf4_ptr,
# CHECK: k4_linear(x_ptr, buf2_ptr, buf3_ptr, p_norm2_weight_ptr
import torch
import torch.nn as nn

batch = 5
dim = 24
wide = 200
narrow = 40


class Model(nn.Module):
    def __init__(self, dim, wide, narrow):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.wide = nn.Linear(dim, wide)
        self.narrow = nn.Linear(dim, narrow)

    def forward(self, x):
        wide = torch.relu(self.wide(self.norm(x))).sum(-1, keepdim=True)
        return self.narrow(self.norm2(x)) + wide


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim, wide, narrow]
