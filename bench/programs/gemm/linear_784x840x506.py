"""A small Linear, 784 rows, 840 features to 506, with its bias, times 0.5, for
bench/gemm_epilogue.py: where a Triton GEMM's tiles leave the GPU's SMs idle and cuBLAS may win."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 784
in_features = 840
out_features = 506


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x) * 0.5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
