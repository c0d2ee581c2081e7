"""A large Linear, 8192 rows of 8192 features to 8192, with its bias and a ReLU: a GEMM-bound
program (1.1 TFLOP a call) for bench/gemm_epilogue.py."""
import torch
import torch.nn as nn

batch_size = 8192
in_features = 8192
out_features = 8192


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
