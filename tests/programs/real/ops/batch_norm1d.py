"""BatchNorm1d over the features of a (batch, features) matrix."""
import torch
import torch.nn as nn

batch_size = 8192
features = 4096

SMALL = {"batch_size": 8, "features": 6}


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bn = nn.BatchNorm1d(features, momentum=0.05)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
