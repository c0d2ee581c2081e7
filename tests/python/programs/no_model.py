import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        return x + 1


def get_inputs():
    return [torch.randn(4)]
