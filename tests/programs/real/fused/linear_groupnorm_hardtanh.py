"""GEMM, GroupNorm over the features, HardTanh."""
import torch
import torch.nn as nn

batch_size = 2048
in_features = 8192
out_features = 8192
num_groups = 16

SMALL = {"batch_size": 4, "in_features": 16, "out_features": 16, "num_groups": 4}


class Model(nn.Module):
    def __init__(self, in_features, out_features, num_groups, hardtanh_min, hardtanh_max):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)

    def forward(self, x):
        return self.hardtanh(self.group_norm(self.gemm(x)))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups, -2.0, 2.0]
