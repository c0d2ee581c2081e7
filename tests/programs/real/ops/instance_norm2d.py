"""InstanceNorm2d without affine parameters."""
import torch
import torch.nn as nn

batch_size = 64
features = 64
dim1 = 256
dim2 = 256

SMALL = {"batch_size": 2, "features": 4, "dim1": 5, "dim2": 6}


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features=features)

    def forward(self, x):
        return self.inorm(x)


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [features]
