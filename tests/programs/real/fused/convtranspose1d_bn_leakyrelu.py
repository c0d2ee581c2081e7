"""ConvTranspose1d upsampling, BatchNorm1d, LeakyReLU (a WaveGAN-style generator stage)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
in_channels = 256
out_channels = 128
length = 2048
kernel_size = 16
stride = 4
padding = 6

SMALL = {"batch_size": 2, "in_channels": 3, "out_channels": 4, "length": 6}


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding):
        super().__init__()
        self.up = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.bn = nn.BatchNorm1d(out_channels)

    def forward(self, x):
        return F.leaky_relu(self.bn(self.up(x)), 0.2)


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride, padding]
