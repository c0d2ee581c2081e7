"""A cast to float64 inside forward: kernels compute in fp32, so import refuses it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x.double()).float()


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
