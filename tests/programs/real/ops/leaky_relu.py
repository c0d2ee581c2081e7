"""LeakyReLU activation with a negative slope of 0.01."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 4096
dim = 16384

SMALL = {"batch_size": 4, "dim": 64}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.leaky_relu(x, negative_slope=0.01)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
