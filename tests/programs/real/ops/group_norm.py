"""GroupNorm with 8 groups over 64 channels."""
import torch
import torch.nn as nn

batch_size = 64
features = 64
dim1 = 256
dim2 = 256
num_groups = 8

SMALL = {"batch_size": 2, "features": 4, "dim1": 5, "dim2": 6, "num_groups": 2}


class Model(nn.Module):
    def __init__(self, features, num_groups):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=features)

    def forward(self, x):
        return self.gn(x)


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features, num_groups]
