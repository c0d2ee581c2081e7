"""Calls drtriton has no operator for, which convert traces again through torch's own
decompositions: F.glu (two slices, a sigmoid, a product), pixel_shuffle (a view and a
permute), binary_cross_entropy_with_logits (log_sigmoid, which import composes), lp_pool2d
(a power, an average pool and a sign). Beside them the steps sign, round, floor, ceil and
trunc, and F.pad in constant mode, which are operators.
# CHECK: _round_half_even(
# CHECK: tl.floor(
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 2
channels = 8
size = 6


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, 4 * channels, 3, padding=1)

    def forward(self, x, target):
        y = F.pixel_shuffle(self.conv(x), 2)                      # [batch, channels, 2s, 2s]
        y = F.glu(y, dim=1)                                       # [batch, channels/2, 2s, 2s]
        pooled = F.lp_pool2d(y, 2, 2)                             # [batch, channels/2, s, s]
        # Steps of the inputs themselves: of a computed value, rounding noise could cross one.
        steps = torch.sign(x) + torch.round(x * 4) + torch.floor(x) + torch.ceil(x) \
            + torch.trunc(x * 3)
        padded = F.pad(steps, (1, 2, 0, 1), value=0.25)
        loss = F.binary_cross_entropy_with_logits(pooled, target)
        return padded, loss


def get_inputs():
    return [torch.randn(batch, channels, size, size),
            torch.rand(batch, channels // 2, size, size)]


def get_init_inputs():
    return [channels]
