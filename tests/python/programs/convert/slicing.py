"""Indexing and views that move no arithmetic: a select (x[:, -1]), slices with negative
bounds and steps, expand, flip, roll and a triangular mask. Each is an index expression that
fuses into the kernel reading it, and runs at other sizes (negative bounds count from the end).
# CHECK-NOT: torch.ops.aten
# CHECK-NOT: .expand(
"""
import torch
import torch.nn as nn

batch = 4
steps = 6
features = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        last = x[:, -1, :]
        inner = x[:, :, 1:-2]
        spread = y.expand(-1, x.shape[1], -1) + x
        every_other = x[:, ::2]
        first, second = x[:, 0], x[:, 1]
        upper = torch.triu(x @ x.transpose(1, 2), diagonal=1)
        rolled = torch.roll(x, shifts=(-1, 3), dims=(1, 2))
        return last, inner, spread, every_other, first * second, upper + torch.flip(upper, [2]), rolled


def get_inputs():
    return [torch.randn(batch, steps, features), torch.randn(batch, 1, features)]


def get_init_inputs():
    return []
