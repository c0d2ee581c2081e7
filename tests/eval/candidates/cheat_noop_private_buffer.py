# task: linear.py  expect: rejected at faithful because replacing it with a no-op leaves the output unchanged
# The no-op test also counts a change to the module's buffers as work (a running-statistics
# update). A kernel whose only work is on a buffer the reference does not have must not
# count: here F.linear (a library op the reference runs too) computes everything, and a
# decoy kernel bumps a counter of the candidate's own.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def bump_kernel(counter_ptr):
    tl.store(counter_ptr, tl.load(counter_ptr) + 1.0)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.register_buffer("calls", torch.zeros(1), persistent=False)

    def forward(self, x):
        bump_kernel[(1,)](self.calls)
        return F.linear(x, self.linear.weight, self.linear.bias)
