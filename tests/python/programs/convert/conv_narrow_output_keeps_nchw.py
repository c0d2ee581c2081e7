"""A 3x3 convolution of 64 output channels, a ReLU, then a 1x1 convolution down to 8 channels:
layout=auto runs the first channels-last and the second NCHW (cuDNN's NHWC kernels for so few
channels ran on TF32 where eager's NCHW ones did not), on the ReLU's result, which its kernel
writes NCHW.
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK: p_head_weight, None, (1, 1), (0, 0), (1, 1), 1).contiguous()
# CHECK-COUNT-2: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Conv2d(16, 64, 3, padding=1)
        self.head = nn.Conv2d(64, 8, 1)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def get_inputs():
    return [torch.randn(batch_size, 16, side, side)]


def get_init_inputs():
    return []
