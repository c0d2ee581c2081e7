"""AvgPool1d with kernel 8 and stride 4 over a long signal."""
import torch
import torch.nn as nn

batch_size = 128
channels = 64
length = 16384

SMALL = {"batch_size": 2, "channels": 3, "length": 24}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=8, stride=4, padding=2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return []
