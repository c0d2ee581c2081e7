"""More calls that import composes (ir/pytorch_import.cpp, ir/pytorch_decompose.cpp): narrow
as a slice (a start counted from the end too), outer as a column times a row, diff twice
along the features (slices of the dim's own length, so other sizes hold), logit with and
without eps, heaviside with a tensor of values (at exact zeros too: rounding makes them), and
rrelu in eval mode (the mean slope).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 4
features = 12


class Model(nn.Module):
    def forward(self, x, v):
        head = x.narrow(1, 2, 5) + x.narrow(1, -5, 5)
        grid = torch.outer(x[:, 0], v)
        steps = torch.diff(x, n=2, dim=1)
        p = torch.sigmoid(x)
        odds = torch.logit(p) + torch.logit(p, eps=0.2)
        stairs = torch.heaviside(torch.round(x), v)
        leak = F.rrelu(x, lower=0.1, upper=0.3, training=False)
        return head, grid, steps, odds, stairs, leak


def get_inputs():
    return [torch.randn(batch, features), torch.randn(features)]


def get_init_inputs():
    return []
