"""Attention written out, (q @ k.transpose(-2, -1)) * scale, a softmax over the keys, @ v,
is one attention kernel where nothing else reads the scores or the probabilities: here the
scaled form over heads (its scale computed from the head dim at run time), and the form of
nn.MultiheadAttention (q scaled first, 3-D bmm, the key transposed by a permute). Where the
probabilities are returned too (the third), the products and the softmax stay apart.
# CHECK-COUNT-2: _sdpa(
# CHECK-COUNT-1: def k2_softmax_stats(
"""
import math

import torch
import torch.nn as nn

batch = 2
heads = 3
length = 40
head_dim = 16


class Model(nn.Module):
    def forward(self, q, k, v):
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        y = torch.softmax(att, dim=-1) @ v
        q3, k3, v3 = (t.flatten(0, 1) for t in (q, k, v))
        z = torch.bmm(torch.softmax(torch.bmm(q3 * 0.25, k3.permute(0, 2, 1)), dim=2), v3)
        probs = torch.softmax(q @ k.transpose(-1, -2) / 4.0, dim=-1)
        return y, z, probs @ v, probs


def get_inputs():
    return [torch.randn(batch, heads, length, head_dim) for _ in range(3)]


def get_init_inputs():
    return []
