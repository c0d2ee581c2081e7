"""A conv + ReLU + Dropout2d block (issue 14): whole channels dropped, one random number
per (sample, channel), in training mode; the identity after .eval()
(test_convert_dropout.py runs it in both modes).
# CHECK-COUNT-1: tl.rand(
# CHECK: ) >= 0.3, t
"""
import torch
import torch.nn as nn

batch = 4
in_channels = 3
channels = 16
size = 8
p = 0.3


class Model(nn.Module):
    def __init__(self, in_channels, channels, p):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.dropout = nn.Dropout2d(p)

    def forward(self, x):
        return self.dropout(torch.relu(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, channels, p]
