"""A small Linear, 24 rows, 2048 features to 2048, with its bias and a leaky ReLU, for
bench/gemm_epilogue.py: where a Triton GEMM's tiles leave the GPU's SMs idle and cuBLAS may win."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 24
in_features = 2048
out_features = 2048


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.leaky_relu(self.fc(x), 0.01)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
