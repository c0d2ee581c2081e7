"""Dropout3d on a volume after a tanh (issue 14): whole (sample, channel) volumes dropped in
training mode, the identity after .eval().
# CHECK-COUNT-1: tl.rand(
"""
import torch
import torch.nn as nn

batch = 4
channels = 8
depth = 3
size = 4
p = 0.4


class Model(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout3d(p)

    def forward(self, x):
        return self.dropout(torch.tanh(x) + 0.5)


def get_inputs():
    return [torch.randn(batch, channels, depth, size, size)]


def get_init_inputs():
    return [p]
