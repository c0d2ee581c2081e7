import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, heads, layers):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)

    def forward(self, x):
        return self.encoder(x)


def get_inputs():
    return [torch.randn(2, 5, 8)]


def get_init_inputs():
    return [8, 2, 2]
