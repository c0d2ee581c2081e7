"""Normalizations over a middle dim whose rows fit a tile are one kernel that reads the
input once (a persistent reduction, as Inductor's): an RMS norm over the channels of
[N, C, H, W] written out (x / sqrt(mean(x^2, 1) + eps)), a softmax over them, and an L2
normalization (the norm, a reduction, read back through a broadcast). The tile
holds whole rows of channels for 64 positions next to each other in memory; the statistics
stay in registers and the output is written from the same tile.
# CHECK-COUNT-3: _rows[(
# CHECK-NOT: _stats[(
"""
import torch
import torch.nn as nn

batch = 2
channels = 12
height, width = 5, 7


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y, z):
        rms = torch.sqrt(torch.mean(x * x, dim=1, keepdim=True) + 1e-5)
        return x / rms, torch.softmax(y, dim=1), z / z.norm(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch, channels, height, width) for _ in range(3)]


def get_init_inputs():
    return []
