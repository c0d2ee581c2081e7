"""A 4-layer GRU (sequence-first layout) returning the outputs of every time step."""
import torch
import torch.nn as nn

batch_size = 256
seq_len = 32
input_size = 128
hidden_size = 256
num_layers = 4

SMALL = {"batch_size": 2, "seq_len": 4, "input_size": 3, "hidden_size": 4, "num_layers": 2}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers)

    def forward(self, x, h0):
        output, _ = self.gru(x, h0)
        return output


def get_inputs():
    return [torch.randn(seq_len, batch_size, input_size), torch.randn(num_layers, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
