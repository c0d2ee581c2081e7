"""Two Linear branches on the same input concatenated along features, then ReLU and a projection."""
import torch
import torch.nn as nn

batch_size = 2048
in_features = 4096
branch_features = 2048
out_features = 1024

SMALL = {"batch_size": 4, "in_features": 16, "branch_features": 8, "out_features": 6}


class Model(nn.Module):
    def __init__(self, in_features, branch_features, out_features):
        super().__init__()
        self.a = nn.Linear(in_features, branch_features)
        self.b = nn.Linear(in_features, branch_features)
        self.out = nn.Linear(2 * branch_features, out_features)

    def forward(self, x):
        h = torch.cat([torch.tanh(self.a(x)), torch.sigmoid(self.b(x))], dim=1)
        return self.out(torch.relu(h))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, branch_features, out_features]
