"""A conv + BatchNorm + ReLU + max pool block, as ModelNew must follow it in both modes:
batch statistics and the running buffers updated in training mode, the running statistics
after .eval() (test_convert_batch_norm.py calls it in both modes against PyTorch).
# CHECK-COUNT-1: if self.training:
# CHECK: k1_batch_norm2d_running[(1,)]
# CHECK: k2_batch_norm2d_eval[(1,)]
# CHECK: momentum = 0.1
"""
import torch
import torch.nn as nn

batch = 4
in_channels = 3
channels = 8
size = 10


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(torch.relu(self.bn(self.conv(x))))


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, channels]
