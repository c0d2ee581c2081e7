"""A conv + BatchNorm + ReLU + Dropout block (issue 14): the dropout drops for real in
training mode, inside the kernel that normalizes, and is the identity after .eval()
(test_convert_dropout.py runs it in both modes).
# CHECK-COUNT-1: dropout_seeds = torch.randint(2**31 - 1, (1,), device=device) if self.training else None
# CHECK-COUNT-1: tl.rand(
# CHECK: ) >= 0.2, t
# CHECK: TRAINING=self.training
"""
import torch
import torch.nn as nn

batch = 4
in_channels = 3
channels = 8
size = 8
p = 0.2


class Model(nn.Module):
    def __init__(self, in_channels, channels, p):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return self.dropout(torch.relu(self.bn(self.conv(x))))


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, channels, p]
