"""A forward that keeps state across calls: an average updated in place and a buffer
overwritten by copy_. The graph computes values only, so each write is refused by name and
line rather than dropped; BatchNorm, an operator of drtriton, writes its own statistics."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(8)
        self.register_buffer("avg", torch.zeros(8))
        self.register_buffer("last", torch.zeros(4, 8))

    def forward(self, x):
        y = self.bn(x)
        self.avg.mul_(0.9).add_(0.1 * y.mean(0))
        self.last.copy_(torch.tanh(y))
        return y - self.avg


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
