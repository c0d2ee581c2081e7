"""In-place dropouts (issue 14): F.dropout(..., inplace=True) and nn.Dropout(inplace=True)
are the dropout they would be out of place, since nothing reads the tensor they overwrite.
# CHECK-COUNT-1: dropout_seeds = torch.randint(2**31 - 1, (2,), device=device) if self.training else None
# CHECK-COUNT-2: tl.rand(
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 16
features = 32
p = 0.25


class Model(nn.Module):
    def __init__(self, features, p):
        super().__init__()
        self.fc1 = nn.Linear(features, features)
        self.fc2 = nn.Linear(features, features)
        self.drop = nn.Dropout(p, inplace=True)

    def forward(self, x):
        h = F.dropout(torch.relu(self.fc1(x)), p=0.1, training=self.training, inplace=True)
        return self.drop(torch.relu(self.fc2(h)))


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features, p]
