"""Padding that is not zeros: F.pad in reflect mode, a Conv2d with padding_mode="replicate"
and a Conv1d with padding_mode="circular". Import makes each module a pad node (the mode as
an index fold: mirrored, clamped, wrapped) before a convolution without padding.
# CHECK-NOT: torch.ops.aten
# CHECK-NOT: F.pad
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 2
channels = 3
size = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(channels, 4, 3, padding=(1, 2), padding_mode="replicate")
        self.conv1d = nn.Conv1d(channels, 2, 3, padding=2, padding_mode="circular")

    def forward(self, x, seq):
        mirrored = F.pad(x, (2, 1, 0, 3), mode="reflect")
        return torch.relu(self.conv(mirrored)), self.conv1d(seq)


def get_inputs():
    return [torch.randn(batch, channels, size, size), torch.randn(batch, channels, 2 * size)]


def get_init_inputs():
    return []
