"""Casts inside forward: a mask made float, a round trip through fp16 and bf16 (each rounds
the value to its precision), an output in fp16, type_as.
# CHECK: .to(tl.float16).to(tl.float32)
# CHECK: _round_bf16
"""
import torch
import torch.nn as nn

rows = 8
features = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        mask = (x > 0).float()
        through_half = x.half().float() * 3.0
        through_bf16 = (y * 1.7).to(torch.bfloat16).to(torch.float32)
        counts = (x > 0.5).long().type_as(x).sum(dim=1, keepdim=True)
        return (mask * through_half + through_bf16 + counts).half()


def get_inputs():
    return [torch.randn(rows, features), torch.randn(rows, features)]


def get_init_inputs():
    return []
