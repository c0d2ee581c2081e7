"""BatchNorm1d with momentum=None: the running statistics are a cumulative average, each
batch weighted 1/num_batches_tracked, which the update kernel reads after counting the batch.
# CHECK: momentum = 1.0 / tracked.to(tl.float32)
"""
import torch
import torch.nn as nn

batch = 8
features = 12


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc = nn.Linear(features, features)
        self.bn = nn.BatchNorm1d(features, momentum=None, eps=1e-3)

    def forward(self, x):
        return torch.tanh(self.bn(self.fc(x)))


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features]
