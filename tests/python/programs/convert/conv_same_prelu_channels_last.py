"""padding="same" with an even kernel pads before the convolution, and a PReLU's weights are
viewed as [C, 1, 1]: neither keeps layout=auto from channels-last, where the statistics over
the channels read whole rows. The pad kernel writes the channels-last copy that cuDNN reads.
# CHECK: k0_pad[(triton.cdiv(
# CHECK: BLOCK_C = min(32,
# CHECK: .contiguous(memory_format=torch.channels_last)
# CHECK-COUNT-1: F.conv2d(
"""
import torch
import torch.nn as nn

batch_size = 2
side = 7


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 32, 4, padding="same")
        self.act = nn.PReLU(32)

    def forward(self, x):
        y = self.act(self.conv(x))
        var, mean = torch.var_mean(y, dim=1, keepdim=True)
        return (y - mean) * torch.rsqrt(var + 1e-5)


def get_inputs():
    return [torch.randn(batch_size, 16, side, side)]


def get_init_inputs():
    return []
