"""The inverse trigonometric and hyperbolic functions, and tan, that import composes
(ir/pytorch_decompose.cpp): atan from a polynomial after its range reduction, atan2 in every
quadrant and at signed zeros (relu's zeros, negated), asin and acos up to +-1, asinh over a
wide range, acosh from 1 up, atanh up to +-0.99.
"""
import torch
import torch.nn as nn

batch = 4
features = 12


class Model(nn.Module):
    def forward(self, x, y):
        zeros = torch.relu(x) * 0.0
        angles = torch.atan2(x, y) + torch.atan2(zeros, -zeros) + torch.atan2(-zeros, y)
        inverse = torch.asin(torch.tanh(x)) + torch.acos(torch.tanh(y)) + torch.atan(x * 4.0)
        hyperbolic = torch.asinh(x * 50.0) + torch.acosh(y.abs() + 1.0) + torch.atanh(torch.tanh(y) * 0.99)
        return angles, inverse, hyperbolic, torch.tan(x * 0.5)


def get_inputs():
    return [torch.randn(batch, features), torch.randn(batch, features)]


def get_init_inputs():
    return []
