"""Row-wise L1 normalization, x / mean(|x|) along dim 1."""
import torch
import torch.nn as nn

batch_size = 4096
dim = 16384

SMALL = {"batch_size": 4, "dim": 32}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x / torch.mean(torch.abs(x), dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
