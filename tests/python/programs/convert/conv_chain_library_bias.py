"""Convolutions read only by convolutions: the library adds their bias (cuDNN, as eager
does), no kernel is written for it; the last ones' biases go into the one kernel after them. An
Inception-like branch (a 1x1 convolution straight into a 3x3 one) and a transposed
convolution into a convolution, on ragged sizes."""
# CHECK: p_reduce_weight, p_reduce_bias, (1, 1)
# CHECK: p_conv_weight, None, (1, 1)
# CHECK: p_up_weight, p_up_bias, (2, 2)
# CHECK: p_smooth_weight, None, (2, 2)
# CHECK-COUNT-1: def k
import torch
import torch.nn as nn

batch = 2
in_channels = 5
channels = 6
height, width = 11, 9


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.reduce = nn.Conv2d(in_channels, channels, 1)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.up = nn.ConvTranspose2d(in_channels, channels, 2, stride=2)
        self.smooth = nn.Conv2d(channels, channels, 3, stride=2, padding=1)

    def forward(self, x):
        branch = torch.relu(self.conv(self.reduce(x)))
        up = torch.tanh(self.smooth(self.up(x)))
        return branch + up


def get_inputs():
    return [torch.randn(batch, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels]
