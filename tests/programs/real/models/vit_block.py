"""A Vision Transformer encoder block: pre-LN multi-head self-attention (qkv Linear + SDPA) and a GELU MLP."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
num_patches = 197
embed_dim = 768
num_heads = 12
mlp_ratio = 4

SMALL = {"batch_size": 2, "num_patches": 5, "embed_dim": 8, "num_heads": 2, "mlp_ratio": 2}


class Attention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        x = F.scaled_dot_product_attention(q, k, v)
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Model(nn.Module):
    def __init__(self, embed_dim, num_heads, mlp_ratio):
        super().__init__()
        self.norm1 = nn.LayerNorm(embed_dim, eps=1e-6)
        self.attn = Attention(embed_dim, num_heads)
        self.norm2 = nn.LayerNorm(embed_dim, eps=1e-6)
        self.mlp = nn.Sequential(
            nn.Linear(embed_dim, embed_dim * mlp_ratio), nn.GELU(), nn.Linear(embed_dim * mlp_ratio, embed_dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def get_inputs():
    return [torch.randn(batch_size, num_patches, embed_dim)]


def get_init_inputs():
    return [embed_dim, num_heads, mlp_ratio]
