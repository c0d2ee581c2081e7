"""A dense (soft) mixture of experts: a softmax gate weights the outputs of every expert MLP, computed with bmm."""
import torch
import torch.nn as nn

batch_size = 2048
dim = 1024
hidden = 1024
num_experts = 8

SMALL = {"batch_size": 4, "dim": 6, "hidden": 5, "num_experts": 3}


class Model(nn.Module):
    def __init__(self, dim, hidden, num_experts):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts)
        self.w_in = nn.Parameter(torch.randn(num_experts, dim, hidden) * dim ** -0.5)
        self.w_out = nn.Parameter(torch.randn(num_experts, hidden, dim) * hidden ** -0.5)

    def forward(self, x):
        weights = torch.softmax(self.gate(x), dim=-1)                  # (B, E)
        xe = x.unsqueeze(0).expand(self.w_in.shape[0], -1, -1)          # (E, B, D)
        h = torch.nn.functional.gelu(torch.bmm(xe, self.w_in))          # (E, B, H)
        y = torch.bmm(h, self.w_out)                                    # (E, B, D)
        return torch.einsum("ebd,be->bd", y, weights)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim, hidden, num_experts]
