"""ELU, LeakyReLU and ReLU6 as nn modules applied to a 4-D activation map."""
import torch
import torch.nn as nn

batch_size = 128
channels = 64
height = 112
width = 112

SMALL = {"batch_size": 2, "channels": 3, "height": 5, "width": 6}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.elu = nn.ELU(alpha=0.5)
        self.leaky = nn.LeakyReLU(0.2)
        self.relu6 = nn.ReLU6()

    def forward(self, x):
        return self.relu6(self.leaky(x) + self.elu(x))


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
