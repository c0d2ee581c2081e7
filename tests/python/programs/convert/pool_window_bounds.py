"""Pool and depthwise-convolution windows check only the positions that can leave the input:
a position before the padding ends may fall before it, one past dilation * (kernel - 1) -
padding may pass its end (in ceil mode, any but the first); the rest read unmasked at every
input size. An average pool that counts its padding divides by the kernel's size, a constant,
except in ceil mode. Every case is judged at other sizes too (the verifier varies them).
The lower checks, (pos >= 0): the 1d pool's first two offsets (2), the 3x3 pools' first offset
in each dim (6 each, three pools), the convolution's every position in both dims (18): 38. The
upper ones, (pos < size): the 1d pool's last two (2), the ceil-mode pools' last two offsets of
each dim (12 each, three pools), the convolution's (18): 56. The strided max pool without
padding checks nothing, nor does the adaptive pool against the input's size.
# KNOB: depthwise=triton
# CHECK-COUNT-38: >= 0)
# CHECK-COUNT-56: < s
# CHECK: / 8.0
# CHECK: tl.static_range(
# CHECK-COUNT-7: @triton.jit
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 2
channels = 3
height = 11
width = 13
length = 29


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        # padding past the kernel's reach: every position is checked at both ends
        self.depthwise = nn.Conv2d(channels, channels, 3, padding=3, groups=channels)

    def forward(self, x, y):
        return (
            F.avg_pool1d(y, 8, stride=4, padding=2),
            F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
            F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
            F.max_pool2d(x, 3, stride=2, padding=1, dilation=2, ceil_mode=True),
            F.max_pool2d(x, (2, 3), stride=(1, 2), dilation=(2, 1)),
            F.adaptive_avg_pool2d(x, (4, 5)),
            self.depthwise(x),
        )


def get_inputs():
    return [torch.randn(batch, channels, height, width), torch.randn(batch, channels, length)]


def get_init_inputs():
    return []
