"""Attention written out whose scores are read twice (their row maxima are returned too), so
that it stays two GEMMs (attention_by_hand.py has the one-kernel form): bmm of queries and
transposed keys (the transpose read inside the GEMM's loads), a scale, softmax (a statistics
kernel), and bmm with the values, whose left operand is the softmax expression.
# KNOB: gemm=triton
# CHECK-COUNT-2: tl.dot(a, b, acc, input_precision="tf32x3")
# CHECK-NOT: torch.bmm
"""
import torch
import torch.nn as nn

batch = 3
queries = 10
keys = 12
head = 20


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        s = torch.bmm(q, k.transpose(1, 2)) * (head ** -0.5)
        p = torch.softmax(s, dim=-1)
        return torch.bmm(p, v), s.amax(dim=-1)


def get_inputs():
    return [torch.randn(batch, queries, head), torch.randn(batch, keys, head),
            torch.randn(batch, keys, head)]


def get_init_inputs():
    return []
