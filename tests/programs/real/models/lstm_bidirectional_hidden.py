"""A bidirectional 2-layer LSTM with explicit initial states; returns the final hidden state h_n."""
import torch
import torch.nn as nn

batch_size = 256
seq_len = 32
input_size = 128
hidden_size = 256
num_layers = 2

SMALL = {"batch_size": 2, "seq_len": 4, "input_size": 3, "hidden_size": 4}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)

    def forward(self, x, h0, c0):
        _, (h_n, _) = self.lstm(x, (h0, c0))
        return h_n


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size),
            torch.randn(num_layers * 2, batch_size, hidden_size),
            torch.randn(num_layers * 2, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
