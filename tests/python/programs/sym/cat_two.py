import torch
import torch.nn as nn

batch_size = 4
channels_a = 5
channels_b = 7
length = 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.tanh(torch.cat([a, b], dim=1))


def get_inputs():
    return [torch.randn(batch_size, channels_a, length), torch.randn(batch_size, channels_b, length)]


def get_init_inputs():
    return []
