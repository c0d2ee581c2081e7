"""A stack of residual Linear-LayerNorm-SiLU layers held in an nn.ModuleList and applied in a Python loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2048
dim = 2048
num_layers = 6

SMALL = {"batch_size": 4, "dim": 8, "num_layers": 3}


class Model(nn.Module):
    def __init__(self, dim, num_layers):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(num_layers)])

    def forward(self, x):
        for layer, norm in zip(self.layers, self.norms):
            x = x + F.silu(layer(norm(x)))
        return x


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim, num_layers]
