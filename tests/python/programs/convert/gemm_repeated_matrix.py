"""A batched product of one matrix repeated over the batch (x.unsqueeze(0).expand(E, -1, -1)
@ W[e]): the Triton GEMM reads x's rows for every entry (one TMA descriptor over x, no copy
of the repeat), and the row-major batched weights are copied K-major first, as tf32
products take them. The weighted sums over the experts are matrix-vector products (N, or M,
a literal 1): fp32 products summed along K, over tiles one column (row) wide. A dense
mixture of experts on ragged sizes."""
# KNOB: gemm=triton
# CHECK: _gemm_tma(x, buf
# CHECK-COUNT-2: _k_major[
# CHECK-NOT: torch.bmm
# CHECK: tl.sum(a * tl.trans(b), axis=1)[:, None]
# CHECK: tl.sum(tl.trans(a) * b, axis=0)[None, :]
# CHECK: BLOCK_N, BLOCK_K = 1, min(64,
# CHECK: BLOCK_M, BLOCK_K = 1, min(64,
import torch
import torch.nn as nn

batch = 7
dim = 12
hidden = 20
experts = 3


class Model(nn.Module):
    def __init__(self, dim, hidden, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.w_in = nn.Parameter(torch.randn(experts, dim, hidden) * dim ** -0.5)
        self.w_out = nn.Parameter(torch.randn(experts, hidden, dim) * hidden ** -0.5)

    def forward(self, x):
        weights = torch.softmax(self.gate(x), dim=-1)
        xe = x.unsqueeze(0).expand(self.w_in.shape[0], -1, -1)
        h = torch.nn.functional.gelu(torch.bmm(xe, self.w_in))
        y = torch.bmm(h, self.w_out)
        mixed = torch.einsum("ebd,be->bd", y, weights)
        return mixed, weights.unsqueeze(1) @ y.transpose(0, 1)


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return [dim, hidden, experts]
