"""Adaptive max pools whose output sizes divide the input's, composed at import
(ir/pytorch_decompose.cpp) as max pools whose window and stride are the ratio: torch 2.11's
trace keeps aten::adaptive_max_pool2d whole (the device machine's), torch 2.13's decomposes
it. A module's (an 8x9 map to 2x3) and F.adaptive_max_pool1d's (12 to 4), the values of the
(values, indices) pair only.
# CHECK-NOT: F.adaptive_max_pool1d(
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d((2, 3))

    def forward(self, x, s):
        return self.pool(x), F.adaptive_max_pool1d(s, 4)


def get_inputs():
    return [torch.randn(2, 3, 8, 9), torch.randn(2, 5, 12)]


def get_init_inputs():
    return []
