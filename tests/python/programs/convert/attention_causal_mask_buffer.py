"""Causal self-attention as minGPT writes it: a lower-triangular mask registered for the
longest sequence, sliced to the input's length in forward (`self.bias[:, :, :T, :T]`), the
scores masked_fill'ed to -inf where it is 0, a dropout of p = 0 on the probabilities. The
mask is read inside the attention kernel, at each score's position; the scores never reach
memory. The slice also keeps the program's sizes dynamic: the static export starts it at 0
where the dynamic one passes None, which the frontend reads as one slice.
# CHECK-COUNT-1: _sdpa(
# CHECK-COUNT-1: float("-inf"), s)
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
seq_len = 24
max_seqlen = 32
n_embd = 32
n_head = 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(0.0)
        self.register_buffer("bias", torch.tril(torch.ones(max_seqlen, max_seqlen))
                             .view(1, 1, max_seqlen, max_seqlen))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def get_inputs():
    return [torch.randn(batch_size, seq_len, n_embd)]


def get_init_inputs():
    return []
