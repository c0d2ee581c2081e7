"""Tensors a program makes or keeps outside its inputs: a causal mask built in forward
(ones, tril, ~), a buffer registered in __init__ (read by its state_dict name, built by
ModelNew's copy of __init__), masked_fill with a scalar and with a 0-d tensor, zeros_like,
full_like, torch.split and a torch.tensor constant. Every one of them is an expression that
fuses into the kernel that reads it: nothing is allocated for the factories.
# CHECK: self.get_buffer("scale")
# CHECK-NOT: torch.ones
# CHECK-NOT: torch.zeros
# CHECK-NOT: torch.tensor
"""
import torch
import torch.nn as nn

batch = 2
steps = 5
features = 6


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 1.5, features))

    def forward(self, x):
        t = x.shape[1]
        scores = x @ x.transpose(1, 2)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        masked = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        shifted = torch.cat((torch.zeros_like(x[:, :1]), x[:, :-1]), dim=1)
        low, high = torch.split(x * self.scale, [2, features - 2], dim=-1)
        floor = torch.full_like(low, 0.25)
        clipped = torch.maximum(low, floor).masked_fill(low < 0, torch.tensor(-1.0))
        return masked @ shifted, clipped, high * torch.tensor(2.0)


def get_inputs():
    return [torch.randn(batch, steps, features)]


def get_init_inputs():
    return [features]
