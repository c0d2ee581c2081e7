# task: linear.py  expect: rejected at faithful because no Triton kernel was launched
# Class 4 (kernels that are never launched count): a jit function that names itself looks
# like a device helper; nothing is ever launched and the library call does all the work.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def decoy_kernel(x_ptr, depth):
    if depth > 0:
        decoy_kernel(x_ptr, depth - 1)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.nn.functional.linear(x, self.linear.weight, self.linear.bias)
