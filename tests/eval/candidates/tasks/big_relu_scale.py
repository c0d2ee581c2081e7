import torch
import torch.nn as nn


class Model(nn.Module):
    """relu(x) * scale on a large input: on the CPU its sizes are shrunk."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.relu(x) * self.scale


batch_size = 2048
dim = 1024
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
