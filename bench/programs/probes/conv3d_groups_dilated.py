import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=(1, 0, 2), dilation=(2, 1, 1), groups=2)

    def forward(self, x):
        return self.c(x)


def get_inputs():
    return [torch.randn(2, 4, 7, 8, 9)]


def get_init_inputs():
    return []
