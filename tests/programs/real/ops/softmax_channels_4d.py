"""Softmax over the channel dimension of an NCHW map (a segmentation head's class scores)."""
import torch
import torch.nn as nn

batch_size = 32
num_classes = 21
height = 256
width = 256

SMALL = {"batch_size": 2, "num_classes": 3, "height": 4, "width": 5}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, num_classes, height, width)]


def get_init_inputs():
    return []
