import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Parameters read by name in forward, as nn.MultiheadAttention reads in_proj_weight."""

    def __init__(self):
        super().__init__()
        self.in_proj_weight = nn.Parameter(torch.randn(24, 8))
        self.in_proj_bias = nn.Parameter(torch.randn(24))

    def forward(self, x):
        qkv = F.linear(x, self.in_proj_weight, self.in_proj_bias).unflatten(-1, (3, 2, 4))
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        return F.scaled_dot_product_attention(q, k, v, scale=0.5)


def get_inputs():
    return [torch.randn(2, 5, 8)]


def get_init_inputs():
    return []
