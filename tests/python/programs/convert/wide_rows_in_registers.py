"""Rows of up to four tiles (16,384 elements at the default tile of 4096) are kept in
registers: a softmax over rows of 8192, a layer norm over rows of 6000 and an L2
normalization over rows of 12,000 are one kernel each that loads its rows once (no column
loop), with a warp for each 1024 columns of the row's block (8, 8 and 16 warps).
# CHECK-COUNT-3: def k
# CHECK-NOT: for c0 in range(
# CHECK-COUNT-3: num_warps=WARPS
# CHECK-NOT: row_statistic
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def forward(self, x, w, z):
        a = torch.softmax(x, dim=-1) * 2.0
        b = F.gelu(self.norm(w))
        c = z / torch.norm(z, p=2, dim=1, keepdim=True)
        return a, b, c


def get_inputs():
    return [torch.randn(4, 8192), torch.randn(3, 6000), torch.randn(5, 12000)]


def get_init_inputs():
    return [6000]
