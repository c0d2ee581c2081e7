"""An Elman RNN cell unrolled by hand over a fixed number of steps: h = tanh(W [x_t, h]); output from the last h."""
import torch
import torch.nn as nn

batch_size = 256
seq_len = 32
input_size = 1024
hidden_size = 1024
output_size = 128

SMALL = {"batch_size": 2, "seq_len": 3, "input_size": 4, "hidden_size": 6, "output_size": 3}


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)

    def forward(self, x, h):
        for t in range(x.shape[1]):
            h = torch.tanh(self.i2h(torch.cat((x[:, t, :], h), dim=1)))
        return self.h2o(h)


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size), torch.zeros(batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]
