"""A 4-layer bidirectional LSTM started from initial states that __init__ keeps as plain
tensor attributes, moved to the input's device in forward; a Linear head on the last step."""
import torch
import torch.nn as nn

batch_size = 64
seq_len = 128
input_size = 128
hidden_size = 256
num_layers = 4
output_size = 10

SMALL = {"batch_size": 2, "seq_len": 4, "input_size": 3, "hidden_size": 4, "num_layers": 2}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.h0 = torch.randn((num_layers * 2, batch_size, hidden_size))
        self.c0 = torch.randn((num_layers * 2, batch_size, hidden_size))
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, output_size)

    def forward(self, x):
        self.h0 = self.h0.to(x.device)
        self.c0 = self.c0.to(x.device)
        out, _ = self.lstm(x, (self.h0, self.c0))
        return self.fc(out[:, -1, :])


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size]
