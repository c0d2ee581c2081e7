"""Tensors made inside forward in the input's half precision: torch.full and ones_like with
the fp16 input's dtype, a value fp16 cannot hold exactly (-0.1).
# CHECK: .to(tl.float16).to(tl.float32)
"""
import torch
import torch.nn as nn

batch_size = 4
features = 24


class Model(nn.Module):
    def forward(self, x):
        shift = torch.full((x.size(1),), -0.1, dtype=x.dtype, device=x.device)
        return (x + shift) * torch.ones_like(x) * 3


def get_inputs():
    return [torch.randn(batch_size, features, dtype=torch.float16)]


def get_init_inputs():
    return []
