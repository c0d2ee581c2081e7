"""Linear, elementwise min with a constant, subtract the same constant."""
import torch
import torch.nn as nn

batch_size = 1024
in_features = 8192
out_features = 8192
constant = 2.0

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 8}


class Model(nn.Module):
    def __init__(self, in_features, out_features, constant):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.constant = nn.Parameter(torch.tensor(constant))

    def forward(self, x):
        x = self.linear(x)
        x = torch.min(x, self.constant)
        return x - self.constant


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, constant]
