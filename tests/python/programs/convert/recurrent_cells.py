"""Recurrent cells, one step each, composed on import (ir/pytorch_decompose.cpp): nn.GRUCell
with biases and without (its state left out: the cell starts from zeros), nn.RNNCell with
tanh and with relu; each is two products and the gates in PyTorch's order.
"""
import torch
import torch.nn as nn

batch = 4
inputs = 6
hidden = 8


class Model(nn.Module):
    def __init__(self, inputs, hidden):
        super().__init__()
        self.gru = nn.GRUCell(inputs, hidden)
        self.gru_plain = nn.GRUCell(inputs, hidden, bias=False)
        self.rnn = nn.RNNCell(inputs, hidden)
        self.rnn_relu = nn.RNNCell(inputs, hidden, bias=False, nonlinearity="relu")

    def forward(self, x, h):
        return (self.gru(x, h), self.gru_plain(x), self.rnn(x, h),
                self.rnn_relu(x, torch.tanh(h)))


def get_inputs():
    return [torch.randn(batch, inputs), torch.randn(batch, hidden)]


def get_init_inputs():
    return [inputs, hidden]
