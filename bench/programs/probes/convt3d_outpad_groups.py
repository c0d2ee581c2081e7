import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.ConvTranspose3d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False)

    def forward(self, x):
        return self.c(x)


def get_inputs():
    return [torch.randn(2, 4, 3, 4, 5)]


def get_init_inputs():
    return []
