import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((heads, 1, 1))))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        scale = torch.clamp(self.logit_scale, max=torch.log(torch.tensor(1.0 / 0.01, device=x.device))).exp()
        attn = (attn * scale).softmax(dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj(y)


def get_inputs():
    return [torch.randn(2, 6, 8)]


def get_init_inputs():
    return [8, 2]
