"""nn.MultiheadAttention with a causal mask that forward makes itself (torch.full, no dtype):
the verifier's float64 truth makes it in float64 (its default dtype there), else baddbmm
would meet a float32 mask beside float64 weights and the truth would fail.
"""
import torch
import torch.nn as nn

batch = 2
seq = 6
embed = 8
heads = 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(embed, heads, batch_first=True)

    def forward(self, x):
        n = x.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf"), device=x.device), 1)
        y, _ = self.attention(x, x, x, attn_mask=mask)
        return y


def get_inputs():
    return [torch.randn(batch, seq, embed)]


def get_init_inputs():
    return []
