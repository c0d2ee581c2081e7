import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)

    def forward(self, x, mem):
        return self.m(x, mem)


def get_inputs():
    return [torch.randn(2, 6, 8), torch.randn(2, 5, 8)]


def get_init_inputs():
    return []
