"""Linear, sigmoid, then a sum over the features (one score per row)."""
import torch
import torch.nn as nn

batch_size = 1024
input_size = 8192
hidden_size = 8192

SMALL = {"batch_size": 4, "input_size": 24, "hidden_size": 16}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x):
        x = torch.sigmoid(self.linear(x))
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
