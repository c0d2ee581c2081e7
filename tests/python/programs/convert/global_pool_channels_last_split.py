"""A global average pool of a channels-last convolution's result reads 128 rows (a sample's
channels) next to each other in memory: 1,024 positions of 128 rows in one program would keep
too little memory in flight, so the positions are split in chunks whose partial sums a second
kernel adds.
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: BLOCK_M, BLOCK_R = _tile_rows(
# CHECK: _adaptive_avg_pool2d_partial[
# CHECK: _adaptive_avg_pool2d_stats[
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 2
side = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 64, 3, padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.gelu(self.conv(x)), 1).flatten(1)


def get_inputs():
    return [torch.randn(batch_size, 16, side, side)]


def get_init_inputs():
    return []
