import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.ConvTranspose2d(3, 4, (3, 5), stride=(2, 1), padding=(1, 2), dilation=(1, 2))

    def forward(self, x):
        return self.c(x)


def get_inputs():
    return [torch.randn(2, 3, 5, 7)]


def get_init_inputs():
    return []
