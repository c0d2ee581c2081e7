"""Post-LN transformer sublayer: output projection, residual add, LayerNorm."""
import torch
import torch.nn as nn

batch_size = 16
seq_len = 1024
hidden = 1024

SMALL = {"batch_size": 2, "seq_len": 3, "hidden": 16}


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dense(hidden_states)
        return self.LayerNorm(hidden_states + input_tensor)


def get_inputs():
    return [torch.randn(batch_size, seq_len, hidden), torch.randn(batch_size, seq_len, hidden)]


def get_init_inputs():
    return [hidden]
