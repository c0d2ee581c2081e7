"""A projection with a hand-held weight used as w.T, plus torch.multiply by a learned gate."""
import torch
import torch.nn as nn

batch_size = 1024
in_features = 4096
out_features = 4096

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 8}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.w = nn.Parameter(torch.randn(out_features, in_features) * 0.02)
        self.gate = nn.Parameter(torch.ones(out_features))

    def forward(self, x):
        return torch.multiply(x @ self.w.T, self.gate)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
