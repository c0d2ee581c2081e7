"""A two-layer perceptron: Linear, LayerNorm, GELU, Linear, a learned scale, then
softmax plus a row sum (two reductions over one value)."""
import torch
import torch.nn as nn

batch_size = 8
in_features = 32
hidden = 64
out_features = 16


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, out_features)
        self.scale = nn.Parameter(torch.ones(out_features))

    def forward(self, x):
        h = torch.nn.functional.gelu(self.norm(self.fc1(x)))
        y = self.fc2(h) * self.scale
        return torch.softmax(y, dim=1) + torch.sum(y, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
