"""MaxPool1d with kernel 4, stride 2, padding 1 and dilation 2 over long sequences."""
import torch
import torch.nn as nn

batch_size = 64
channels = 128
length = 8192

SMALL = {"batch_size": 2, "channels": 3, "length": 20}


class Model(nn.Module):
    def __init__(self, kernel_size, stride, padding, dilation):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [4, 2, 1, 2]
