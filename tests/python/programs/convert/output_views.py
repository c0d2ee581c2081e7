"""Outputs that reshape a buffer a kernel wrote are returned as views of it (torch's view of a
contiguous tensor), not copied by a kernel of their own: the GEMM's product flattened, a
mean kept to one column then squeezed. A library result's reshape is still copied (every
output is written by a Triton kernel), and so is a buffer returned a second time. Ragged sizes."""
# KNOB: gemm=triton
# CHECK: return (buf1.view(
# CHECK: , buf2.view(s0), buf3)
# CHECK-NOT: _flatten[
import torch
import torch.nn as nn

batch = 5
dim = 12
out = 7


class Model(nn.Module):
    def __init__(self, dim, out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim, out))

    def forward(self, x):
        product = torch.relu(x @ self.weight)
        means = x.mean(dim=-1, keepdim=True).squeeze(-1)
        return product.flatten(), means, product


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim, out]
