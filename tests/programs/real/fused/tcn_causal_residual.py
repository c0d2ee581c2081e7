"""Temporal-convolution residual block: a dilated causal Conv1d (pad then chomp), ReLU, 1x1 conv residual."""
import torch
import torch.nn as nn

batch_size = 64
channels = 256
length = 4096
kernel_size = 3
dilation = 4

SMALL = {"batch_size": 2, "channels": 4, "length": 12}


class Model(nn.Module):
    def __init__(self, channels, kernel_size, dilation):
        super().__init__()
        self.chomp = (kernel_size - 1) * dilation
        self.conv1 = nn.Conv1d(channels, channels, kernel_size, padding=self.chomp, dilation=dilation)
        self.conv2 = nn.Conv1d(channels, channels, 1)
        self.relu = nn.ReLU()

    def forward(self, x):
        y = self.conv1(x)[:, :, :-self.chomp].contiguous()
        y = self.relu(y)
        y = self.conv2(y)
        return self.relu(x + y)


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [channels, kernel_size, dilation]
