import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=False)
        self.pw = nn.Conv2d(4, 6, 1, bias=False)

    def forward(self, x):
        return self.pw(self.dw(x))


def get_inputs():
    return [torch.randn(2, 4, 9, 9)]


def get_init_inputs():
    return []
