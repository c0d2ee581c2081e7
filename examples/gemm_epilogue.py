"""A GEMM with a fused-looking epilogue: bias, GELU (tanh form), a learned scale, a
residual clamp, then group normalization over the features."""
import torch
import torch.nn as nn

batch_size = 32
in_features = 64
out_features = 48
groups = 4


class Model(nn.Module):
    def __init__(self, in_features, out_features, groups):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(out_features) * 0.1 + 1.0)
        self.norm = nn.GroupNorm(groups, out_features)

    def forward(self, x):
        y = torch.nn.functional.gelu(self.gemm(x), approximate="tanh") * self.scale
        y = torch.clamp(y + 0.5 * y, min=-1.0, max=1.0)
        return self.norm(y)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, groups]
