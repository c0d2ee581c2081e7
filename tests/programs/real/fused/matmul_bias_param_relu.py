"""A hand-written dense layer: torch.matmul with a weight, a bias Parameter, ReLU, then divide."""
import torch
import torch.nn as nn

batch_size = 2048
in_features = 4096
out_features = 8192
divisor = 4.0

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 8}


class Model(nn.Module):
    def __init__(self, in_features, out_features, divisor):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.02)
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.divisor = divisor

    def forward(self, x):
        return torch.relu(torch.matmul(x, self.weight) + self.bias) / self.divisor


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, divisor]
