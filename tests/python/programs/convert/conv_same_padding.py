"""Convolutions with padding="same": an even total (dilation 2, kernel 3) is the node's own
padding; an odd one (kernel 4) pads one more after, as a pad node before the convolution,
in reflect mode where the module asks for it.
# CHECK-NOT: torch.ops.aten
"""
import torch
import torch.nn as nn

batch = 2
side = 9


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(8, 8, 3, padding='same', dilation=2)
        self.b = nn.Conv2d(8, 4, (4, 3), padding='same')
        self.c = nn.Conv1d(4, 4, 4, padding='same', padding_mode='reflect')

    def forward(self, x):
        y = self.b(torch.relu(self.a(x)))
        return y, self.c(y.flatten(2))


def get_inputs():
    return [torch.randn(batch, 8, side, side)]


def get_init_inputs():
    return []
