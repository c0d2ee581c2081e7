"""An autoencoder's downsampling: a 4x4 convolution of stride 2 from 32 to 64 channels, a batch
norm, then a 3x3 convolution and another batch norm. cuDNN runs the first on fp32 in NCHW and on
TF32 in NHWC (its batch norm's running mean was rejected channels-last on an H100), so
layout=auto runs it NCHW on the program's input; the 3x3 convolution takes channels-last.
# CHECK: F.conv2d(x, p_down_weight, None, (2, 2), (1, 1), (1, 1), 1).contiguous()
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK-COUNT-2: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(32, 64, 4, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.conv = nn.Conv2d(64, 64, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(64)

    def forward(self, x):
        x = torch.relu(self.bn1(self.down(x)))
        return torch.relu(self.bn2(self.conv(x)))


def get_inputs():
    return [torch.randn(batch_size, 32, side, side)]


def get_init_inputs():
    return []
