"""Windowed multi-head attention with a learned relative position bias (Swin-style): the bias
table is read through a buffer of relative position indices, and a shifted-window mask is
added, both made in __init__."""
import torch
import torch.nn as nn

batch_size = 64
window_size = 7
dim = 128
num_heads = 4
num_windows = 16

SMALL = {"batch_size": 2, "window_size": 2, "dim": 8, "num_heads": 2, "num_windows": 2}


class Model(nn.Module):
    def __init__(self, dim, window_size, num_heads, num_windows):
        super().__init__()
        self.num_heads = num_heads
        self.num_windows = num_windows
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.relative_position_bias_table = nn.Parameter(
            0.02 * torch.randn((2 * window_size - 1) ** 2, num_heads))
        coords = torch.stack(torch.meshgrid(torch.arange(window_size), torch.arange(window_size),
                                            indexing="ij")).flatten(1)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        relative[:, :, 0] += window_size - 1
        relative[:, :, 1] += window_size - 1
        relative[:, :, 0] *= 2 * window_size - 1
        self.register_buffer("relative_position_index", relative.sum(-1))
        n = window_size * window_size
        region = torch.arange(num_windows)[:, None] + torch.arange(n)[None, :] // (n // 2 + 1)
        mask = (region[:, :, None] != region[:, None, :]).float() * -100.0
        self.register_buffer("attn_mask", mask)

    def forward(self, x):
        Bw, N, C = x.shape
        qkv = self.qkv(x).reshape(Bw, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
        bias = bias.view(N, N, -1).permute(2, 0, 1).contiguous()
        attn = attn + bias.unsqueeze(0)
        attn = attn.view(Bw // self.num_windows, self.num_windows, self.num_heads, N, N)
        attn = attn + self.attn_mask.unsqueeze(1).unsqueeze(0)
        attn = torch.softmax(attn.view(-1, self.num_heads, N, N), dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(Bw, N, C)
        return self.proj(out)


def get_inputs():
    return [torch.randn(batch_size * num_windows, window_size * window_size, dim)]


def get_init_inputs():
    return [dim, window_size, num_heads, num_windows]
