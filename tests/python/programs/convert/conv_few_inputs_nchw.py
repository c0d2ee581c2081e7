"""A convolution of 8 input channels stays NCHW under layout=auto, though its 32 output
channels and the ReLU after it would take channels-last: cuDNN ran such a convolution on fp32
in NCHW and on TF32 in NHWC (an H100), so the channels-last answer would be held to fp32's
accuracy with a TF32 product.
# CHECK-NOT: channels_last
# CHECK-COUNT-1: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 32, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(batch_size, 8, side, side)]


def get_init_inputs():
    return []
