"""A 3-layer LSTM over a sequence, the last time step's output fed to a Linear classifier."""
import torch
import torch.nn as nn

batch_size = 256
seq_len = 32
input_size = 128
hidden_size = 256
num_layers = 3
output_size = 10

SMALL = {"batch_size": 2, "seq_len": 4, "input_size": 3, "hidden_size": 4, "num_layers": 2}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1, :])


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size]
