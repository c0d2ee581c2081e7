"""The tutorial's program (docs/tutorial.md): a Linear layer, GELU and LayerNorm, as in the
feed-forward part of a transformer block."""
import torch
import torch.nn as nn

batch_size = 16
in_features = 64
out_features = 128


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features)

    def forward(self, x):
        return self.norm(torch.nn.functional.gelu(self.fc(x)))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
