"""Token projection, LayerNorm, GELU on a (batch, seq, dim) activation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
seq_len = 512
in_dim = 1024
out_dim = 4096

SMALL = {"batch_size": 2, "seq_len": 3, "in_dim": 16, "out_dim": 8}


class Model(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.proj = nn.Linear(in_dim, out_dim)
        self.norm = nn.LayerNorm(out_dim)

    def forward(self, x):
        return F.gelu(self.norm(self.proj(x)))


def get_inputs():
    return [torch.randn(batch_size, seq_len, in_dim)]


def get_init_inputs():
    return [in_dim, out_dim]
