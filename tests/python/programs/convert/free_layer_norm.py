"""F.layer_norm on parameters the program owns itself (nanoGPT's LayerNorm class), and with
none: composed of means and a reciprocal square root, since no nn.LayerNorm owns them. (The
solution copies the LayerNorm class, which ModelNew.__init__ builds, but never calls it.)
# CHECK-NOT: F.layer_norm(x, x.shape
# CHECK-NOT: self.ln(x)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 4
steps = 6
features = 16


class LayerNorm(nn.Module):
    def __init__(self, ndim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim) + 0.1 * torch.randn(ndim))
        self.bias = nn.Parameter(0.1 * torch.randn(ndim))

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = LayerNorm(features)

    def forward(self, x):
        return self.ln(x), F.layer_norm(x, x.shape[-2:], eps=1e-6)


def get_inputs():
    return [torch.randn(batch, steps, features)]


def get_init_inputs():
    return [features]
