"""An MLP block with LayerNorm and two dropouts (issue 14): one before the second Linear (a
kernel writes the dropped activations, which the second GEMM reads), one the function form on the residual
branch. Each dropout has its own seed, drawn on every call in training mode.
# CHECK-COUNT-1: dropout_seeds = torch.randint(2**31 - 1, (2,), device=device) if self.training else None
# CHECK-COUNT-2: tl.rand(
# CHECK: tl.load(dropout_seeds_ptr + 1)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 16
features = 32
hidden = 64
p = 0.25


class Model(nn.Module):
    def __init__(self, features, hidden, p):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, features)

    def forward(self, x):
        h = self.drop(F.gelu(self.norm(self.fc1(x))))
        return x + F.dropout(self.fc2(h), p=0.1, training=self.training)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, hidden, p]
