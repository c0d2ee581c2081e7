"""InstanceNorm2d applied to a 3-D (batch, rows, cols) input after unsqueezing a channel dim."""
import torch
import torch.nn as nn

batch_size = 256
rows = 512
cols = 512

SMALL = {"batch_size": 3, "rows": 4, "cols": 5}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.InstanceNorm2d(1, affine=True)

    def forward(self, x):
        return self.norm(x.unsqueeze(1)).squeeze(1)


def get_inputs():
    return [torch.randn(batch_size, rows, cols)]


def get_init_inputs():
    return []
