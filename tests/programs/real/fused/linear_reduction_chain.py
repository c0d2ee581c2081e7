"""Linear, then a chain of reductions: sum, max, mean and log-sum-exp, each keeping dim 1."""
import torch
import torch.nn as nn

batch_size = 1024
in_features = 8192
out_features = 8192

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 8}


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = self.linear(x)
        x = torch.sum(x, dim=1, keepdim=True)
        x = torch.max(x, dim=1, keepdim=True)[0]
        x = torch.mean(x, dim=1, keepdim=True)
        x = torch.logsumexp(x, dim=1, keepdim=True)
        return torch.logsumexp(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
