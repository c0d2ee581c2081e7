"""Convolutions whose output channels each read one input channel are expressions, windows
like a pool's, not library calls: a depthwise 3x3 (stride 2, padding 1, bias) written by an
elementwise kernel for the batch norm after it (a statistics kernel does not unroll a
window); a depthwise 5x5 with two outputs a channel (dilation 2) of a SiLU of a batch norm,
which costs more than the recompute limit and is written first rather than recomputed at each
of the 25 positions; a 1-d depthwise convolution; a convolution of one input channel. The
1x1 convolution between them stays cuDNN's, as does the 9x9 one (past 49 positions). A
channel of a depthwise output taken by index (`[:, 5]`) reads input channel 2 and its
weights as scalars. Kernels: the two batch norms' statistics and running statistics, the
SiLU written, the depthwise 3x3 and 5x5 written for the batch norm and for the max pool and
sum that both read it.
# KNOB: depthwise=triton
# CHECK-COUNT-2: F.conv2d(
# CHECK-COUNT-1: F.conv1d(
# CHECK: // 2
# CHECK: tl.load(p_dw5_weight_ptr + 125)
"""
import torch
import torch.nn as nn

batch_size = 2
channels = 4
size = 11


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.dw = nn.Conv2d(channels, channels, 3, stride=2, padding=1, groups=channels)
        self.bn = nn.BatchNorm2d(channels)
        self.pw = nn.Conv2d(channels, channels, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.dw5 = nn.Conv2d(channels, 2 * channels, 5, padding=4, dilation=2, groups=channels, bias=False)
        self.pool = nn.MaxPool2d(2)
        self.dw1d = nn.Conv1d(channels, channels, 3, padding=1, groups=channels)
        self.one = nn.Conv2d(1, 3, 3, padding=1)
        self.wide = nn.Conv2d(1, 2, 9, padding=4)
        self.sep = nn.Conv1d(channels, channels, 1)

    def forward(self, x, seq, image):
        y = torch.relu(self.bn(self.dw(x)))
        y = nn.functional.silu(self.bn2(self.pw(y)))
        z = self.dw5(y)
        pooled = self.pool(z)
        total = z.sum(dim=(2, 3))
        s = self.sep(self.dw1d(seq).tanh())
        picked = self.dw5(x)[:, 5] * 2
        return pooled, total, s, self.one(image) * 2, self.wide(image), picked


def get_inputs():
    return [torch.randn(batch_size, channels, size, size), torch.randn(batch_size, channels, 17),
            torch.randn(batch_size, 1, 6, 7)]


def get_init_inputs():
    return [channels]
