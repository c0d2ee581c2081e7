"""A DenseNet layer: batch norm, ReLU, a 3x3 convolution and a dropout of p=0, whose result is
concatenated to the input's channels. Neither the concatenation nor the dropout keeps
layout=auto from channels-last: the batch norm's statistics read the input's rows, and the
concatenation writes the output NCHW.
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: _cat[
# CHECK-COUNT-1: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Sequential(nn.BatchNorm2d(32), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1, bias=False),
                                   nn.Dropout(0.0))

    def forward(self, x):
        return torch.cat([x, self.layer(x)], 1)


def get_inputs():
    return [torch.randn(batch_size, 32, side, side)]


def get_init_inputs():
    return []
