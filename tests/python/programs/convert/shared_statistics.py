"""Every statistic of one computed tensor over one dim in one statistics kernel, which reads
it once: softmax's and log_softmax's maximum and sum of exponentials, which logsumexp reads
too (one online softmax); a variance, a standard deviation, a mean and a layer norm's
statistics (one Welford accumulator: rows this short are whole in registers, so one mean
and one sum of squared deviations over the row's count); a maximum and a 2-norm (each one
reduction of the tile: 2 maxima, 3 sums). 2 kernels
(the statistics, the output; each evaluates the tensor, which loads x as reading the tensor
back would), where they were 9 (7 statistics kernels and the tensor written first).
# CHECK-COUNT-1: _stats(
# CHECK-COUNT-1: tl.sum(tl.where(m, tl.exp(
# CHECK-COUNT-1: = (hi - lo) * 1.0
# CHECK-COUNT-2: tl.max(tl.where(m,
# CHECK-COUNT-3: tl.sum(tl.where(m,
# CHECK-COUNT-2: def k
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 8
features = 300


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def forward(self, x):
        y = torch.tanh(x) * 3 + 0.5
        p = torch.softmax(y, dim=1) + torch.log_softmax(y, dim=1) * 0.1
        stats = torch.logsumexp(y, dim=1) + torch.var(y, dim=1) + y.std(dim=1, unbiased=False)
        stats = stats + y.mean(dim=1) - y.amax(dim=1) + torch.linalg.vector_norm(y, dim=1) * 0.01
        return p * stats.unsqueeze(1) + self.norm(y)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
