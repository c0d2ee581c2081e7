"""A convolution of 16 input and 64 output channels, then an instance norm and a ReLU:
layout=auto takes channels-last, as for a batch norm (the statistics read each position's
channels as rows), and the output is written back NCHW.
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: _instance_norm2d_stats[
# CHECK-COUNT-1: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 64, 3, padding=1)
        self.norm = nn.InstanceNorm2d(64, affine=True)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, 16, side, side)]


def get_init_inputs():
    return []
