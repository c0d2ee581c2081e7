"""Linear without bias, tanh, HardSwish, then a broadcast bias Parameter and a clamp_min."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 1024
in_features = 8192
out_features = 8192

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 8}


class Model(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.1)

    def forward(self, x):
        x = F.hardswish(torch.tanh(self.gemm(x)))
        return torch.clamp_min(x + self.bias, -0.5)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, (out_features,)]
