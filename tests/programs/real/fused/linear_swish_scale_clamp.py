"""Linear, swish (x * sigmoid(x)), scaling by a constant, clamping to a range."""
import torch
import torch.nn as nn

batch_size = 1024
in_features = 8192
out_features = 8192
scaling_factor = 2.0

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 16}


class Model(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = self.matmul(x)
        x = x * torch.sigmoid(x)
        x = x * self.scaling_factor
        return torch.clamp(x, min=-4.0, max=4.0)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
