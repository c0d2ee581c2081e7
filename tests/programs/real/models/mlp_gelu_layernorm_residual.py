"""A residual MLP tower: blocks of LayerNorm, Linear, GELU, Linear with skip connections."""
import torch
import torch.nn as nn

batch_size = 2048
dim = 1024
expansion = 4
depth = 4

SMALL = {"batch_size": 4, "dim": 8, "depth": 2}


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class Model(nn.Module):
    def __init__(self, dim, expansion, depth):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim, dim * expansion) for _ in range(depth)])
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        return self.head(self.blocks(x))


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim, expansion, depth]
