import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lrn = nn.LocalResponseNorm(size=5, alpha=1e-4, beta=0.75, k=2.0)

    def forward(self, x):
        return self.lrn(x)


def get_inputs():
    return [torch.randn(2, 6, 5, 5)]


def get_init_inputs():
    return []
