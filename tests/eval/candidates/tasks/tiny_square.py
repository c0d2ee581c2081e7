import torch
import torch.nn as nn


class Model(nn.Module):
    """y = relu(x) on a 3 x 3 matrix: no size can grow within the interpreter's 1.5x limit
    (both rows and columns grow by one at least, 16 / 9 of the inputs), so only the down
    variation runs, and the verdict says why the up one did not."""

    def forward(self, x):
        return torch.relu(x)


rows = 3
cols = 3


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
