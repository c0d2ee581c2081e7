import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, c, h, w = x.shape
        seq = x.view(b, c, h * w).permute(2, 0, 1)
        out, _ = self.attn(seq, seq, seq)
        out = self.norm(out + seq)
        return out.permute(1, 2, 0).view(b, c, h, w)


def get_inputs():
    return [torch.randn(2, 8, 3, 4)]


def get_init_inputs():
    return [8, 2]
