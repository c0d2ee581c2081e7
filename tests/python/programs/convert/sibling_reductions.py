"""Four reductions of one computed tensor over the same dim (mean, max, sum and a 2-norm), and
one over another dim: the four share one statistics kernel that reads the input once
(horizontal fusion), the mean and the sum one accumulator (rows whole in registers: one sum
of the tile for both, one of squares, one maximum); the fifth is a kernel of its own.
# CHECK-COUNT-2: _stats(
# CHECK-COUNT-2: tl.sum(tl.where(m,
# CHECK-COUNT-1: tl.max(tl.where(m,
"""
import torch
import torch.nn as nn

batch_size = 6
features = 50


class Model(nn.Module):
    def forward(self, x):
        y = torch.tanh(x) * 2 + 0.5
        mean = y.mean(dim=1)
        top = y.amax(dim=1)
        total = y.sum(dim=1)
        norm = torch.linalg.vector_norm(y, dim=1)
        cols = y.sum(dim=0)
        return mean * top - total / (norm + 1), cols


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return []
