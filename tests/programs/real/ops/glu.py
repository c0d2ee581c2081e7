"""Gated linear unit over the last dim (F.glu: the first half times the sigmoid of the second)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 4096
dim = 8192

SMALL = {"batch_size": 4, "dim": 16}


class Model(nn.Module):
    def forward(self, x):
        return F.glu(x, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
