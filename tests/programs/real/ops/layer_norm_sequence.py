"""LayerNorm over the hidden size of a (batch, seq, hidden) transformer activation."""
import torch
import torch.nn as nn

batch_size = 32
seq_len = 1024
hidden = 1024

SMALL = {"batch_size": 2, "seq_len": 5, "hidden": 16}


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-6)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden)]


def get_init_inputs():
    return [hidden]
