"""F.pad in constant mode with a non-zero value and uneven amounts, then a max pool."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 32
channels = 64
height = 256
width = 256

SMALL = {"batch_size": 2, "channels": 3, "height": 7, "width": 6}


class Model(nn.Module):
    def forward(self, x):
        y = F.pad(x, (1, 2, 0, 3), value=-0.5)
        return F.max_pool2d(y, 2)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
