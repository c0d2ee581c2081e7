"""A Linear of 4096 rows, 4096 features to 4096, with its bias and a GELU, for
bench/gemm_epilogue.py."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 4096
in_features = 4096
out_features = 4096


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
