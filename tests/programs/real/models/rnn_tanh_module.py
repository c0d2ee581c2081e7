"""nn.RNN (tanh, 2 layers, batch first) followed by a Linear head on every time step."""
import torch
import torch.nn as nn

batch_size = 256
seq_len = 32
input_size = 256
hidden_size = 512
num_layers = 2
output_size = 64

SMALL = {"batch_size": 2, "seq_len": 4, "input_size": 3, "hidden_size": 4, "output_size": 2}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size, num_layers, batch_first=True)
        self.head = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out)


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size]
