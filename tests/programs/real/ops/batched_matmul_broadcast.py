"""Batched matmul where a shared weight matrix is broadcast over a 4-D activation (heads x batch)."""
import torch
import torch.nn as nn

batch_size = 32
heads = 16
seq_len = 512
head_dim = 64
out_dim = 128

SMALL = {"batch_size": 2, "heads": 2, "seq_len": 8, "head_dim": 4, "out_dim": 6}


class Model(nn.Module):
    def __init__(self, head_dim, out_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(head_dim, out_dim) * 0.02)

    def forward(self, x):
        return torch.matmul(x, self.weight)


def get_inputs():
    return [torch.randn(batch_size, heads, seq_len, head_dim)]


def get_init_inputs():
    return [head_dim, out_dim]
