"""Reductions over long rows with few of them, which the compiler splits into chunks and a
combining kernel: batch norm statistics, softmax, logsumexp, variance, max, norm, mean (and
batch norm's two kernels of its running statistics: the update, and 1/std in eval mode).
The six statistics of the normalized tensor share one split reduction (horizontal fusion:
one online softmax for softmax and logsumexp, one Welford accumulator for the variance and
the mean, a maximum, a sum of squares): 7 kernels, where they were 13 (and 17 before).
# CHECK: def k0_batch_norm2d_partial(
# CHECK: def k0_batch_norm2d_stats(
# CHECK: SPLIT, CHUNK, BLOCK_C = _split(
# CHECK: def k4_softmax_partial(
# CHECK: def k4_softmax_stats(
# CHECK-COUNT-2: _partial(
# CHECK-COUNT-1: mx = tl.full(
# CHECK: acc1 = acc1 + t
# CHECK-COUNT-7: def k
"""
import torch
import torch.nn as nn

batch_size = 4
channels = 4
size = 64


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = self.bn(x).flatten(1)
        p = torch.softmax(y, dim=1)
        stats = torch.logsumexp(y, dim=1) + torch.var(y, dim=1) + torch.amax(y, dim=1)
        stats = stats + torch.linalg.vector_norm(y, dim=1) + y.mean(dim=1)
        return p * stats.unsqueeze(1)


def get_inputs():
    return [torch.randn(batch_size, channels, size, size)]


def get_init_inputs():
    return [channels]
