"""A Linear followed by a chain of elementwise ops with a residual: one Triton GEMM kernel,
the bias and the whole chain in its epilogue.
# KNOB: gemm=triton
# CHECK-COUNT-1: def k
# CHECK-NOT: F.linear(
# CHECK: input_precision="tf32x3"
# CHECK: _tanh(
# CHECK-NOT: torch.tanh
"""
import torch
import torch.nn as nn

batch_size = 16
features = 32


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, features)

    def forward(self, x):
        y = self.fc(x)
        y = torch.tanh(torch.nn.functional.gelu(y) * 0.5) + x
        return torch.clamp(y, min=-2.0, max=2.0) * 1.5


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
