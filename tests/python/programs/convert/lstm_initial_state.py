"""An LSTM started from initial states that __init__ keeps as plain tensor attributes
(self.h0 = torch.randn(...), not buffers), moved to the input's device in forward. ModelNew
copies __init__, so it draws the same states under the same seed, and passes them to the
layer; a solution that started from zeros would be rejected.
# CHECK: self.register_buffer("h0", value, persistent=False)
# CHECK: p_h0 = self.get_buffer("h0")
# CHECK-NOT: .to(device)
# CHECK: torch.lstm(
"""
import torch
import torch.nn as nn

batch_size = 3
seq_len = 5
input_size = 4
hidden_size = 6
num_layers = 2


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.h0 = torch.randn((num_layers, batch_size, hidden_size))
        self.c0 = torch.randn((num_layers, batch_size, hidden_size))
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, 2)

    def forward(self, x):
        self.h0 = self.h0.to(x.device)
        self.c0 = self.c0.to(x.device)
        out, (h_n, c_n) = self.lstm(x, (self.h0, self.c0))
        return self.fc(out[:, -1, :]), c_n


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
