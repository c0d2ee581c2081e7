import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 6, 3)
        self.bias = nn.Parameter(torch.randn(6, 1, 1, 1))

    def forward(self, x):
        x = torch.relu(self.conv(x))
        x = torch.nn.functional.leaky_relu(x, negative_slope=0.01)
        x = torch.nn.functional.gelu(x)
        return torch.sigmoid(x) + self.bias


def get_inputs():
    return [torch.randn(2, 3, 6, 6, 6)]


def get_init_inputs():
    return []
