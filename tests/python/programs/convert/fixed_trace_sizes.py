"""A loop over x.shape[1] whose steps differ (each scales its state by its own t + 1, so no
one step repeats: unrolled_step_loop.py is the loop the compiler rolls again), unrolled by the
trace: the solution's kernels are those of 4 steps, so it checks that dim and says so (a
ValueError naming the size) on any other, rather than read past the input. Sizes the trace left
symbolic (the batch, the features) are read."""
# CHECK: if x.shape[1] != 4:
# CHECK: raise ValueError(f"x.shape[1] is {x.shape[1]}, but the trace fixed it to 4
# CHECK-COUNT-1: raise ValueError
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features, hidden):
        super().__init__()
        self.cell = nn.Linear(features + hidden, hidden)
        self.hidden = hidden

    def forward(self, x):
        h = torch.zeros(x.shape[0], self.hidden, device=x.device)
        for t in range(x.shape[1]):
            h = torch.tanh(self.cell(torch.cat((x[:, t, :], h), dim=1))) * (t + 1)
        return h


def get_inputs():
    return [torch.randn(3, 4, 5)]


def get_init_inputs():
    return [5, 6]
