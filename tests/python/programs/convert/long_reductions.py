"""Reductions over long rows with few of them, which the compiler splits into chunks and a
combining kernel: batch norm statistics, softmax, logsumexp, variance, max, norm, mean (and
batch norm's two kernels of its running statistics: the update, and 1/std in eval mode).
Max, norm and mean of one tensor share one split reduction (horizontal fusion): 13 kernels,
where they were 17.
# CHECK: def k0_batch_norm2d_partial(
# CHECK: def k0_batch_norm2d_stats(
# CHECK: SPLIT, CHUNK = _split(
# CHECK: acc2 = acc2 + t
# CHECK-COUNT-13: def k
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
