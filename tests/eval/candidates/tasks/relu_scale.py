import torch
import torch.nn as nn


class Model(nn.Module):
    """y = relu(x) * scale"""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.relu(x) * self.scale


batch_size = 8
dim = 64
scale = 2.5


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
