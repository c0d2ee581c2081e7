"""Linear without bias, BatchNorm1d (batch statistics), ReLU."""
import torch
import torch.nn as nn

batch_size = 4096
in_features = 4096
out_features = 4096

SMALL = {"batch_size": 8, "in_features": 16, "out_features": 12}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, bias=False)
        self.bn = nn.BatchNorm1d(out_features)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.bn(self.fc(x)))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
