"""AdaptiveAvgPool3d to a single voxel, then flatten: the head of a 3-D CNN."""
import torch
import torch.nn as nn

batch_size = 32
channels = 128
depth = 16
height = 28
width = 28

SMALL = {"batch_size": 2, "channels": 3, "depth": 2, "height": 3, "width": 4}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool3d(1)

    def forward(self, x):
        return torch.flatten(self.pool(x), 1)


def get_inputs():
    return [torch.randn(batch_size, channels, depth, height, width)]


def get_init_inputs():
    return []
