"""A convolution trunk (batch norm, ReLU), a global average pool and a Linear head: the head
works on [N, C], where no positions are left, so it does not keep layout=auto from
channels-last.
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: _batch_norm2d_stats[
# CHECK-COUNT-1: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Conv2d(16, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU())
        self.head = nn.Linear(64, 5)

    def forward(self, x):
        return self.head(self.trunk(x).mean(dim=(2, 3)))


def get_inputs():
    return [torch.randn(batch_size, 16, side, side)]


def get_init_inputs():
    return []
