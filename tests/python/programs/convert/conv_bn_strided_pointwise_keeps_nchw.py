"""A ResNet block's downsampling: a 1x1 convolution of stride 2, then a batch norm. cuDNN runs
that convolution on fp32 in NCHW and on TF32 in NHWC (its running mean was rejected
channels-last on an H100), so layout=auto runs it NCHW on the program's input, as eager does,
while the 3x3 convolution (32 to 64 channels: TF32 in both layouts) and its batch norm take
channels-last.
# CHECK: F.conv2d(x, p_down_0_weight, None, (2, 2), (0, 0), (1, 1), 1).contiguous()
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK-COUNT-2: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 64, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(64)
        self.down = nn.Sequential(nn.Conv2d(32, 64, 1, stride=2, bias=False), nn.BatchNorm2d(64))

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)) + self.down(x))


def get_inputs():
    return [torch.randn(batch_size, 32, side, side)]


def get_init_inputs():
    return []
