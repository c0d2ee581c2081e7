import torch
import torch.nn as nn


class Model(nn.Module):
    """relu(dropout(x)): random in training mode, so that mode is judged by the distribution
    of the results, and eval mode (dropout the identity) exactly."""

    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return torch.relu(self.dropout(x))


batch_size = 8
dim = 64
p = 0.1


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [p]
