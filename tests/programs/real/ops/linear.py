"""A single fully connected layer (nn.Linear with bias) on a large batch."""
import torch
import torch.nn as nn

batch_size = 1024
in_features = 8192
out_features = 4096

SMALL = {"batch_size": 4, "in_features": 32, "out_features": 16}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
