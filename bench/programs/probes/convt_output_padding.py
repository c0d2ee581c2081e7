import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.c(x)


def get_inputs():
    return [torch.randn(2, 3, 5, 5)]


def get_init_inputs():
    return []
