"""Calls composed on import whose sizes follow the input's (the verifier's varied-size runs
check it): grouped-query attention's k.repeat_interleave(n_rep, dim=1), torch.repeat_interleave
over the flattened tensor, x.repeat with more repeats than dims, torch.diag of a vector,
torch.diag_embed, torch.cdist (p = 2 and p = 1) and nn.Bilinear.
# CHECK-NOT: torch.ops.aten
# CHECK-NOT: .repeat
# CHECK-NOT: cdist
"""
import torch
import torch.nn as nn

batch = 2
heads = 4
kv_heads = 2
tokens = 6
head_dim = 8
features = 5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(head_dim))
        self.pair = nn.Bilinear(head_dim, head_dim, features)

    def forward(self, q, k, v):
        n_rep = heads // kv_heads
        k = k.repeat_interleave(n_rep, dim=1)
        v = torch.repeat_interleave(v, n_rep, dim=1)
        scores = torch.softmax(q @ k.transpose(-2, -1) / head_dim**0.5, dim=-1)
        out = (scores @ v) @ torch.diag(self.scale)
        tiled = q.repeat(2, 1, 1, 3)
        flat = torch.repeat_interleave(k[:, :, 0, 0], 3)
        embedded = torch.diag_embed(q[:, 0])
        near = torch.cdist(q, k) + torch.cdist(q, v, p=1)
        paired = self.pair(q, v)
        return out, tiled, flat, embedded, near, paired


def get_inputs():
    return [torch.randn(batch, heads, tokens, head_dim),
            torch.randn(batch, kv_heads, tokens, head_dim),
            torch.randn(batch, kv_heads, tokens, head_dim)]


def get_init_inputs():
    return []
