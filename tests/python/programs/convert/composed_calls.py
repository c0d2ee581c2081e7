"""Calls with no operator of their own, composed on import: the activations hardshrink, softshrink,
threshold, celu (alpha 1 and not), nn.PReLU with one weight per channel and with one for all,
torch.linalg.norm over everything and over two dims, and the pairs of torch.var_mean and
torch.std_mean (each element its own reduction).
# CHECK-NOT: torch.ops.aten
# CHECK-NOT: torch.linalg
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 2
channels = 8
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.per_channel = nn.PReLU(channels)
        self.shared = nn.PReLU()

    def forward(self, x):
        y = F.hardshrink(x, 0.5) + F.softshrink(x, 0.3) + F.threshold(x, 0.1, 20.0)
        y = y + F.celu(x, 0.7) + F.celu(x)
        scaled = x / torch.linalg.norm(x)
        per_map = torch.linalg.norm(x, dim=(2, 3), keepdim=True)
        var, mean = torch.var_mean(x, dim=-1, keepdim=True)
        std, mean_all = torch.std_mean(x, dim=(1, 2), correction=0)
        normed = (x - mean) / torch.sqrt(var + 1e-5)
        return self.per_channel(y) + self.shared(normed), scaled, per_map, std * mean_all


def get_inputs():
    return [torch.randn(batch, channels, side, side)]


def get_init_inputs():
    return []
