"""A Linear of 1024 rows, 1024 features to 1024, with its bias and a GELU, for
bench/gemm_epilogue.py: where a Triton GEMM's tiles leave the GPU's SMs idle and cuBLAS may win."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 1024
in_features = 1024
out_features = 1024


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
