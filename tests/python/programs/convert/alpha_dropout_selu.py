"""A SELU network's block (issue 14): Linear, SELU, AlphaDropout, which keeps the mean and
variance SELU keeps: a dropped element becomes a * alpha' + b, a kept one a * x + b.
# CHECK-COUNT-1: tl.rand(
"""
import torch
import torch.nn as nn

batch_size = 64
features = 32
p = 0.2


class Model(nn.Module):
    def __init__(self, features, p):
        super().__init__()
        self.fc = nn.Linear(features, features)
        self.dropout = nn.AlphaDropout(p)

    def forward(self, x):
        return self.dropout(torch.selu(self.fc(x)))


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, p]
