"""nn.MultiheadAttention self-attention over image patches plus a residual and LayerNorm (a CNN-attention hybrid head)."""
import torch
import torch.nn as nn

batch_size = 32
embed_dim = 256
num_heads = 8
height = 32
width = 32

SMALL = {"batch_size": 2, "embed_dim": 8, "num_heads": 2, "height": 2, "width": 3}


class Model(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.norm = nn.LayerNorm(embed_dim)

    def forward(self, x):
        B, C, H, W = x.shape
        x = x.view(B, C, H * W).permute(2, 0, 1)
        attn_output, _ = self.attn(x, x, x)
        x = self.norm(attn_output + x)
        return x.permute(1, 2, 0).view(B, C, H, W)


def get_inputs():
    return [torch.randn(batch_size, embed_dim, height, width)]


def get_init_inputs():
    return [embed_dim, num_heads]
