"""einsum over two operands: permutes around one matmul (a Triton GEMM kernel), whatever the
letters' order. A 4-d tensor times a matrix, a batched product and attention scores. Other
forms (three operands, a letter summed in one operand alone) are a product and a sum, one
statistics kernel. '...' and the implicit output (no '->') are spelled out first.
# KNOB: gemm=triton
# CHECK-NOT: torch.einsum
# CHECK-NOT: torch.matmul(
# CHECK-COUNT-4: tl.dot(a, b, acc
"""
import torch
import torch.nn as nn

batch = 2
heads = 3
rows = 5
inner = 4


class Model(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.w = nn.Parameter(torch.randn(inner, 6))

    def forward(self, x, q, k):
        tensor_matrix = torch.einsum("bijl,lk->bijk", x, self.w)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k)
        transposed = torch.einsum("bhqd,bhkd->bhkq", q, k)
        weighted = torch.einsum("bhqk,bhkd,bhqd->bhq", scores, k, q)
        row_sums = torch.einsum("bhqd,bhkd->bhq", q, k)
        broadcast = torch.einsum("...qd,...kd->...qk", q, k)
        implicit = torch.einsum("bhqd,d", q, self.w[:, 0]) + torch.einsum("...d,...d", q, q)
        return (tensor_matrix * 2.0, torch.softmax(scores, dim=-1), transposed, weighted, row_sums,
                broadcast, implicit)


def get_inputs():
    return [torch.randn(batch, heads, rows, inner), torch.randn(batch, heads, rows, inner),
            torch.randn(batch, heads, 7, inner)]


def get_init_inputs():
    return [inner]
