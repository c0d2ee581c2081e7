# task: linear_gelu.py  expect: rejected at faithful because --strict  options: {"strict": true}
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(out_ptr + offs, 0.5 * y * (1.0 + tl.erf(y * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    """The matmul through torch (a library call the default mode allows), the epilogue in Triton."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = torch.mm(x, self.linear.weight.t())
        out = torch.empty_like(y)
        n = y.numel()
        bias_gelu_kernel[(triton.cdiv(n, 256),)](y, self.linear.bias, out, n, y.shape[1], BLOCK=256)
        return out
