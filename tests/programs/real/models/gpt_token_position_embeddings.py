"""A GPT-style language model: token embeddings plus position embeddings read through torch.arange, a causal mask made from two aranges, one decoder block and an output head."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 16
seq_len = 512
vocab_size = 8192
dim = 512
num_heads = 8
max_positions = 1024

SMALL = {"batch_size": 2, "seq_len": 6, "vocab_size": 16, "dim": 8, "num_heads": 2, "max_positions": 8}


class Model(nn.Module):
    def __init__(self, vocab_size, dim, num_heads, max_positions):
        super().__init__()
        self.num_heads = num_heads
        self.tokens = nn.Embedding(vocab_size, dim)
        self.positions = nn.Embedding(max_positions, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.norm_out = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, ids):
        B, T = ids.shape
        pos = torch.arange(0, T, dtype=torch.long, device=ids.device).unsqueeze(0)
        x = self.tokens(ids) + self.positions(pos)
        q, k, v = self.qkv(self.norm1(x)).split(x.size(-1), dim=2)
        q = q.view(B, T, self.num_heads, -1).transpose(1, 2)
        k = k.view(B, T, self.num_heads, -1).transpose(1, 2)
        v = v.view(B, T, self.num_heads, -1).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        steps = torch.arange(T, device=ids.device)
        future = steps[None, :] > steps[:, None]
        att = F.softmax(att.masked_fill(future, float("-inf")), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, -1))
        x = x + self.down(F.gelu(self.up(self.norm2(x))))
        return self.head(self.norm_out(x))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, dim, num_heads, max_positions]
