"""A Linear with its bias and a GELU: one Triton GEMM kernel (tf32x3 for fp32), the bias and
the GELU in its epilogue; sizes that are not multiples of any block.
# KNOB: gemm=triton
# CHECK-COUNT-1: def k
# CHECK: tl.dot(a, b, acc, input_precision="tf32x3")
# CHECK: tl.erf(
# CHECK-NOT: F.linear
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 13
in_features = 37
out_features = 19


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
