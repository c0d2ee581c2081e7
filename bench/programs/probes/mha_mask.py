import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        y, _ = self.m(x, x, x, attn_mask=torch.triu(torch.full((6, 6), float('-inf')), 1))
        return y


def get_inputs():
    return [torch.randn(2, 6, 8)]


def get_init_inputs():
    return []
