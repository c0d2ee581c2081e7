import torch
import torch.nn as nn


class Model(nn.Module):
    """BatchNorm1d as written: in training mode it normalizes with the batch's statistics."""

    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        return self.bn(x)


batch_size = 12
num_features = 16


def get_inputs():
    return [torch.randn(batch_size, num_features)]


def get_init_inputs():
    return [num_features]
