"""A Linear without bias over a 3-d input (its rows are batch x sequence), then swish, which
reads the product twice: both in the GEMM's epilogue, the product never written.
# KNOB: gemm=triton
# CHECK-COUNT-1: def k
# CHECK: tl.sigmoid((acc))
# CHECK-NOT: p_proj_bias
"""
import torch
import torch.nn as nn

batch_size = 3
seq_len = 7
in_features = 24
out_features = 18


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False)

    def forward(self, x):
        y = self.proj(x)
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(batch_size, seq_len, in_features)]


def get_init_inputs():
    return [in_features, out_features]
