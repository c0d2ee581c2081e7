"""Hinge loss for binary classification with targets in {-1, +1}."""
import torch
import torch.nn as nn

batch_size = 32768
dim = 4096

SMALL = {"batch_size": 4, "dim": 16}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randint(0, 2, (batch_size, 1)).float() * 2 - 1]


def get_init_inputs():
    return []
