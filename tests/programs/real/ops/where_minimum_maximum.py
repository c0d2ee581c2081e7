"""Binary elementwise ops with broadcasting: where with a comparison, minimum and maximum."""
import torch
import torch.nn as nn

batch_size = 1024
rows = 512
cols = 512

SMALL = {"batch_size": 2, "rows": 4, "cols": 5}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        m = torch.where(a > b, a, b * 0.5)
        return torch.minimum(torch.maximum(m, c), a + 1.0)


def get_inputs():
    return [torch.randn(batch_size, rows, cols), torch.randn(batch_size, 1, cols), torch.randn(rows, 1)]


def get_init_inputs():
    return []
