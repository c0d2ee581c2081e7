"""A depthwise convolution reading a channels-last convolution's result: its input, the
ReLU of the 1x1 convolution plus its bias, costs more than the recompute limit and is
written first, NHWC as the convolution's result (a kernel running in memory order), and the
depthwise expression loads it at permuted strides; the program's output is contiguous NCHW.
# KNOB: depthwise=triton
# KNOB: layout=channels_last
# CHECK-COUNT-1: F.conv2d(
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: dtype=torch.float32, memory_format=torch.channels_last)
"""
import torch
import torch.nn as nn

batch_size = 2
channels = 6
height = 9
width = 7


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.pw = nn.Conv2d(4, channels, 1)
        self.dw = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)

    def forward(self, x):
        return torch.tanh(self.dw(torch.relu(self.pw(x))))


def get_inputs():
    return [torch.randn(batch_size, 4, height, width)]


def get_init_inputs():
    return [channels]
