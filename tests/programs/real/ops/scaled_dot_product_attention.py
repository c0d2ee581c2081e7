"""Scaled dot-product attention via torch.nn.functional.scaled_dot_product_attention."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
num_heads = 16
seq_len = 512
head_dim = 64

SMALL = {"batch_size": 2, "num_heads": 2, "seq_len": 8, "head_dim": 4}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, Q, K, V):
        return F.scaled_dot_product_attention(Q, K, V)


def get_inputs():
    shape = (batch_size, num_heads, seq_len, head_dim)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return []
