"""fp32 products in ieee (dot_precision), the route convert falls back to where a tf32x3
solution is rejected: the attention kernel's two dots and a Triton GEMM's one take fp32
FMAs, and no dot is left in tf32x3.
# KNOB: gemm=triton
# KNOB: dot_precision=ieee
# CHECK-COUNT-3: input_precision="ieee"
# CHECK-NOT: tf32x3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 2
seq = 8
dim = 16


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.out = nn.Linear(dim, dim)

    def forward(self, q, k, v):
        return self.out(F.scaled_dot_product_attention(q, k, v))


def get_inputs():
    return [torch.randn(batch, seq, dim), torch.randn(batch, seq, dim), torch.randn(batch, seq, dim)]


def get_init_inputs():
    return [dim]
