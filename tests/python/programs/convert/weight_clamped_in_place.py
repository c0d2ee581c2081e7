"""A weight clamped in place under no_grad at every call (the same clamp each time): import
computes the clamp as a value and leaves the parameter as it is; the verifier does not compare
parameters after a forward, so the solution stands or falls by its outputs. Buffers written in
place are refused on import instead (tests/python/programs/import/state_writes.py)."""
import torch
import torch.nn as nn

batch = 8
features = 16


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.w = nn.Parameter(torch.randn(features, features))

    def forward(self, x):
        with torch.no_grad():
            self.w.clamp_(-0.5, 0.5)
        return x @ self.w


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features]
