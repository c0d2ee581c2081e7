"""Pre-norm projection: RMSNorm with a learned weight, then a bias-free Linear."""
import torch
import torch.nn as nn

batch_size = 16
seq_len = 1024
dim = 2048
out_dim = 2048

SMALL = {"batch_size": 2, "seq_len": 3, "dim": 16, "out_dim": 8}


class Model(nn.Module):
    def __init__(self, dim, out_dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.proj = nn.Linear(dim, out_dim, bias=False)

    def forward(self, x):
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return self.proj(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim)]


def get_init_inputs():
    return [dim, out_dim]
