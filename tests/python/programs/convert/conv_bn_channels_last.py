"""A convolution of more than 32 output channels, then a batch norm (batch statistics, the
running ones updated) and a ReLU: layout=auto takes channels-last, whose statistics read each
position's channels as a row, and the output is written back NCHW.
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: k1_batch_norm2d_stats[(triton.cdiv(s4, BLOCK_M),)](lib0,
# CHECK-COUNT-1: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 64, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(64)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, 16, side, side)]


def get_init_inputs():
    return []
