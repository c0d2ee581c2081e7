"""A pool of a pool: the first is written to memory once, not recomputed at each of the
second's window positions (a 3x3 pool inside a 2x2 one: 36 reads an output instead of 4); the
ReLU before the first stays inside it.
# CHECK: def k0_max_pool2d(
# CHECK: def k1_avg_pool2d(
# CHECK-COUNT-2: @triton.jit
"""
import torch
import torch.nn as nn

batch = 2
channels = 3
size = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.smooth = nn.MaxPool2d(3, stride=1, padding=1)
        self.down = nn.AvgPool2d(2)

    def forward(self, x):
        return self.down(self.smooth(torch.relu(x)))


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return []
