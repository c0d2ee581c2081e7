"""An RNN cell stepped by hand over the sequence (for t in range(x.shape[1])): the trace unrolls
the loop to the traced length; the compiler finds the repeated step again and lowers it once,
inside a loop over x.shape[1], so that the solution runs at other lengths (the verifier's runs
at varied sizes change seq_len) and compiles each kernel once. The hidden state is carried from
step to step in one variable; the step index is a kernel argument that is no constexpr.
# CHECK: steps = x.shape[1]
# CHECK: carry3 = h
# CHECK: for step in range(steps):
# CHECK-COUNT-1: F.linear(buf0, p_i2h_weight)
# CHECK-NOT: step: tl.constexpr
# CHECK-NOT: but the trace fixed it
"""
import torch
import torch.nn as nn

batch_size = 4
seq_len = 5
input_size = 8
hidden_size = 12


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, 3)

    def forward(self, x, h):
        for t in range(x.shape[1]):
            h = torch.tanh(self.i2h(torch.cat((x[:, t, :], h), dim=1)))
        return self.h2o(h)


def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size), torch.randn(batch_size, hidden_size)]


def get_init_inputs():
    return []
