"""LayerNorm over the trailing three dimensions of a 4-D tensor."""
import torch
import torch.nn as nn

batch_size = 16
features = 64
dim1 = 256
dim2 = 256

SMALL = {"batch_size": 2, "features": 3, "dim1": 4, "dim2": 5}


class Model(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [(features, dim1, dim2)]
