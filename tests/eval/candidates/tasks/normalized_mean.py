import torch
import torch.nn as nn


class Model(nn.Module):
    """The mean of each row after normalizing it: 0 whatever the input, up to rounding (the
    kind of program a benchmark holds by accident: a GroupNorm followed by a mean)."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ((x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True)).mean(1)


batch_size = 2
features = 64


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return []
