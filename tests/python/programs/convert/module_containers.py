"""Modules in a ModuleDict under a numeric key, a Sequential and a ModuleList: forward reads
their weights by state_dict key (self.get_parameter("heads.0.weight")), since
self.heads[0] finds no ModuleDict entry (a fragment of a Sequential, as test-time search
writes it, is such a ModuleDict).
# CHECK-NOT: self.heads[0]
# CHECK: self.get_parameter("heads.0.weight")
"""
import torch
import torch.nn as nn

batch = 4
features = 16


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.heads = nn.ModuleDict()
        self.heads["0"] = nn.Linear(features, features)
        self.trunk = nn.Sequential(nn.Linear(features, features), nn.ReLU())
        self.blocks = nn.ModuleList([nn.Linear(features, features) for _ in range(2)])

    def forward(self, x):
        x = self.trunk(self.heads["0"](x))
        for block in self.blocks:
            x = x + torch.tanh(block(x))
        return x


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features]
