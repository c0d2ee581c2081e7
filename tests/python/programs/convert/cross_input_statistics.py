"""Statistics of different inputs over the same rows share a statistics kernel, which reads
each input once (horizontal fusion): the variances of both inputs (two Welford accumulators,
each over its whole rows in registers: a count each) with the mean of one, which reads its
Welford accumulator; then, past
the six accumulator tensors a kernel of several inputs keeps, a cosine similarity's norms
and sum of products (a later elementwise node, computed inline) with the sum whose input a
statistic computes, in a second kernel. The statistics of the other dim are a third. Rows
this short are whole in registers: each sum is one reduction of the tile (three a kernel).
# CHECK-COUNT-3: _stats(
# CHECK-COUNT-2: = (hi - lo) * 1.0
# CHECK-COUNT-6: tl.sum(tl.where(m,
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 6
features = 50


class Model(nn.Module):
    def forward(self, a, b):
        spread = a.var(dim=1) - b.var(dim=1)
        centered = (a - a.mean(dim=1, keepdim=True)).abs().sum(dim=1)
        cos = F.cosine_similarity(a, b, dim=1)
        cols = (a * b).sum(dim=0)
        return cos + spread, centered, cols


def get_inputs():
    return [torch.randn(batch_size, features), torch.randn(batch_size, features)]


def get_init_inputs():
    return []
