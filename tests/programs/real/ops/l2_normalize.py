"""Row-wise L2 normalization, x / ||x||_2 along dim 1."""
import torch
import torch.nn as nn

batch_size = 4096
dim = 16384

SMALL = {"batch_size": 4, "dim": 32}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
