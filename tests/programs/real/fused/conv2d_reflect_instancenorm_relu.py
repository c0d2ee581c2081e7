"""A style-transfer residual block: reflection-padded 3x3 convolutions (padding_mode="reflect"),
instance norms with affine parameters and a ReLU, added to the input."""
import torch
import torch.nn as nn

batch_size = 16
channels = 64
height = 128
width = 128

SMALL = {"batch_size": 2, "channels": 4, "height": 6, "width": 6}


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, padding_mode="reflect")
        self.norm1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, padding_mode="reflect")
        self.norm2 = nn.InstanceNorm2d(channels, affine=True)

    def forward(self, x):
        y = torch.relu(self.norm1(self.conv1(x)))
        return x + self.norm2(self.conv2(y))


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels]
