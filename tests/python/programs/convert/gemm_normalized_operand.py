"""Layer norms feeding Linears: where the product spans more than one tile of columns, the
normalized rows are written first (their input, two statistics, a weight and a bias loaded
in the K loop would take its pipeline stages, and be recomputed by every column tile), by
one kernel that computes the statistics of rows held in registers and writes them
normalized; a Linear of few columns still computes its layer norm as it loads its operand.
Ragged sizes."""
# KNOB: gemm=triton
# CHECK: def k0_layer_norm_rows(x_ptr,
# CHECK: def k1_linear(buf0_ptr,
# CHECK: k4_linear(y_ptr, buf3_ptr, buf4_ptr, p_norm2_weight_ptr
# CHECK-NOT: _layer_norm(
import torch
import torch.nn as nn

batch = 5
dim = 24
other_dim = 20
wide = 200
narrow = 40


class Model(nn.Module):
    def __init__(self, dim, other_dim, wide, narrow):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(other_dim)
        self.wide = nn.Linear(dim, wide)
        self.narrow = nn.Linear(other_dim, narrow)

    def forward(self, x, y):
        wide = torch.relu(self.wide(self.norm(x))).sum(-1, keepdim=True)
        return self.narrow(self.norm2(y)) + wide


def get_inputs():
    return [torch.randn(batch, dim), torch.randn(batch, other_dim)]


def get_init_inputs():
    return [dim, other_dim, wide, narrow]
