"""Swin-style shifted-window attention: cyclic shift with torch.roll, window partition, attention per window, reverse."""
import torch
import torch.nn as nn

batch_size = 32
resolution = 56
dim = 96
window_size = 7
num_heads = 3
shift_size = 3

SMALL = {"batch_size": 2, "resolution": 4, "dim": 4, "window_size": 2, "num_heads": 2, "shift_size": 1}


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size * window_size, C)


def window_reverse(windows, window_size, H, W):
    C = windows.shape[-1]
    B = windows.shape[0] // ((H // window_size) * (W // window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, C)


class Model(nn.Module):
    def __init__(self, dim, resolution, window_size, num_heads, shift_size):
        super().__init__()
        self.resolution = resolution
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, L, C = x.shape
        H = W = self.resolution
        shortcut = x
        x = self.norm(x).view(B, H, W, C)
        x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        windows = window_partition(x, self.window_size)
        Bw, N, _ = windows.shape
        qkv = self.qkv(windows).reshape(Bw, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = torch.softmax((q * self.scale) @ k.transpose(-2, -1), dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(Bw, N, C)
        out = self.proj(out)
        x = window_reverse(out, self.window_size, H, W)
        x = torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        return shortcut + x.reshape(B, H * W, C)


def get_inputs():
    return [torch.randn(batch_size, resolution * resolution, dim)]


def get_init_inputs():
    return [dim, resolution, window_size, num_heads, shift_size]
