"""A bidirectional 3-layer GRU returning the final hidden states of both directions."""
import torch
import torch.nn as nn

batch_size = 256
seq_len = 32
input_size = 128
hidden_size = 256
num_layers = 3

SMALL = {"batch_size": 2, "seq_len": 4, "input_size": 3, "hidden_size": 4, "num_layers": 2}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)

    def forward(self, x):
        _, h_n = self.gru(x)
        return h_n


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
