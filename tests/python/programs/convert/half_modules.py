"""Modules made fp16 with .half(): their parameters are loaded into fp32 like every fp16
value, and the output is cast back to fp32 at the end (`.float()`).
# CHECK: p_norm_weight_ptr
"""
import torch
import torch.nn as nn

rows = 8
features = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(features, features).half()
        self.norm = nn.LayerNorm(features).half()

    def forward(self, x):
        return torch.sigmoid(self.norm(self.fc(x))).float()


def get_inputs():
    return [torch.randn(rows, 4, features, dtype=torch.float16)]


def get_init_inputs():
    return []
