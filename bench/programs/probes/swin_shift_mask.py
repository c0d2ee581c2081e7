import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, heads, window, size):
        super().__init__()
        self.heads, self.window, self.shift = heads, window, window // 2
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        img = torch.zeros((1, size, size, 1))
        cnt = 0
        for h in (slice(0, -window), slice(-window, -self.shift), slice(-self.shift, None)):
            for w in (slice(0, -window), slice(-window, -self.shift), slice(-self.shift, None)):
                img[:, h, w, :] = cnt
                cnt += 1
        win = img.view(1, size // window, window, size // window, window, 1).permute(0, 1, 3, 2, 4, 5)
        win = win.reshape(-1, window * window)
        mask = win.unsqueeze(1) - win.unsqueeze(2)
        mask = mask.masked_fill(mask != 0, float(-100.0)).masked_fill(mask == 0, float(0.0))
        self.register_buffer("attn_mask", mask)

    def forward(self, x):
        B, H, W, C = x.shape
        w = self.window
        x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        win = x.view(B, H // w, w, W // w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, C)
        Bn, N, _ = win.shape
        qkv = self.qkv(win).reshape(Bn, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * (C // self.heads) ** -0.5) @ k.transpose(-2, -1)
        nw = self.attn_mask.shape[0]
        attn = attn.view(Bn // nw, nw, self.heads, N, N) + self.attn_mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, self.heads, N, N).softmax(dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(Bn, N, C)
        y = self.proj(y).view(B, H // w, W // w, w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)
        return torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))


def get_inputs():
    return [torch.randn(2, 4, 4, 8)]


def get_init_inputs():
    return [8, 2, 2, 4]
