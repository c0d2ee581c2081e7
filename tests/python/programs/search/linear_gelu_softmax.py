"""Linear, GELU, a scale, then softmax over the features."""
import torch
import torch.nn as nn

batch_size = 8
in_features = 32
out_features = 16


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = torch.nn.functional.gelu(self.fc(x)) * 2.0
        return torch.softmax(y, dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
