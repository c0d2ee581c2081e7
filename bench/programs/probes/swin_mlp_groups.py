import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, heads, window):
        super().__init__()
        self.heads, self.window = heads, window
        self.spatial = nn.Conv1d(heads * window * window, heads * window * window, 1, groups=heads)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        B, H, W, C = x.shape
        w = self.window
        x = self.norm(x)
        x = x.view(B, H // w, w, W // w, w, C).permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, w * w, C)
        x = x.view(-1, w * w, self.heads, C // self.heads).transpose(1, 2).reshape(-1, self.heads * w * w, C // self.heads)
        x = self.spatial(x)
        x = x.view(-1, self.heads, w * w, C // self.heads).transpose(1, 2).reshape(-1, w * w, C)
        return x


def get_inputs():
    return [torch.randn(2, 4, 4, 8)]


def get_init_inputs():
    return [8, 2, 2]
