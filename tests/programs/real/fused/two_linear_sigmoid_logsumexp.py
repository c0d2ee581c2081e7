"""Two stacked Linear layers with a sigmoid between them, then log-sum-exp over the outputs."""
import torch
import torch.nn as nn

batch_size = 2048
input_size = 4096
hidden_size = 4096
output_size = 1024

SMALL = {"batch_size": 4, "input_size": 16, "hidden_size": 12, "output_size": 8}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.linear1 = nn.Linear(input_size, hidden_size)
        self.linear2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = torch.sigmoid(self.linear1(x))
        x = self.linear2(x)
        return torch.logsumexp(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]
