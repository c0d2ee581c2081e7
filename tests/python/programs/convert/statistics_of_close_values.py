"""Statistics of values close together (about 100, spread 0.01: a std far below the mean),
as the verifier's sorted set makes at GPU sizes: variances over a middle dim of many short
rows (one statistics kernel) and of a few long ones (split into chunks, the partials combined
by Chan's formula), and a batch norm's statistics. Welford's update on the raw values loses
the spread's digits (a thousandth of a variance); each lane works on its values less its
first one. test_convert_numerics.py holds the outputs to a float64 truth.
"""
import torch
import torch.nn as nn

batch = 2
length = 8192
channels = 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(channels)

    def forward(self, x, short):
        rows = x.transpose(1, 2)  # [batch, channels, length]
        return torch.var(short, dim=1), torch.var(x, dim=1), self.norm(rows)


def get_inputs():
    return [100.0 + torch.rand(batch, length, channels) * 0.01,
            100.0 + torch.rand(batch, 64, 512) * 0.01]  # 1,024 rows of 64


def get_init_inputs():
    return []
