"""Attention core with torch.bmm on (batch*heads, seq, dim) tensors: scores, scale, softmax, weighted sum."""
import torch
import torch.nn as nn

batch_heads = 256
seq_len = 512
head_dim = 64

SMALL = {"batch_heads": 2, "seq_len": 6, "head_dim": 4}


class Model(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) * self.scale
        probs = torch.softmax(scores, dim=-1)
        return torch.bmm(probs, v)


def get_inputs():
    shape = (batch_heads, seq_len, head_dim)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return [head_dim]
