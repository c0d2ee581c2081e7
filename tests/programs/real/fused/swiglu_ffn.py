"""SwiGLU feed-forward block of a LLaMA-style transformer: w2(silu(w1 x) * w3 x)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 8
seq_len = 512
dim = 1024
hidden_dim = 2816

SMALL = {"batch_size": 2, "seq_len": 3, "dim": 16, "hidden_dim": 24}


class Model(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim)]


def get_init_inputs():
    return [dim, hidden_dim]
