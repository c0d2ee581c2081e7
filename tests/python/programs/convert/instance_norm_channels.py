"""InstanceNorm2d after an unsqueeze: the channel dim holds 1, not num_features. Without affine
weights or running stats PyTorch normalizes any channel count (with a warning), so must we."""
import torch
import torch.nn as nn

batch = 4
rows = 16
length = 20


class Model(nn.Module):
    def __init__(self, rows):
        super().__init__()
        self.norm = nn.InstanceNorm2d(rows)

    def forward(self, x):
        return self.norm(x.unsqueeze(1)).squeeze(1) * 2.0


def get_inputs():
    return [torch.randn(batch, rows, length)]


def get_init_inputs():
    return [rows]
