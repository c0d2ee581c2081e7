"""Products whose epilogue keeps a triangle: tril(A @ B) and triu(A @ B, 1) + 1 (batched). A
tile the mask zeroes whole skips the GEMM's K loop (its accumulator stays 0, which the mask
turns into the 0 it writes anyway); square 80 x 80 products in tiles of at most 64 have such
tiles, and tiles the diagonal cuts compute as before. A product read elsewhere too (the
plain sum) keeps every tile.
# KNOB: gemm=triton
# CHECK-COUNT-1: k_end = tl.where(n0 - (m0 + BLOCK_M - 1) > 0, 0, K)
# CHECK-COUNT-1: k_end = tl.where(n0 + BLOCK_N - 1 - m0 < 1, 0, K)
"""
import torch
import torch.nn as nn

n = 80
batch = 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c, d, e):
        full = a @ e
        return (torch.tril(a @ b), torch.triu(torch.bmm(c, d), diagonal=1) + 1,
                torch.tril(full) + full.sum())


def get_inputs():
    return [torch.randn(n, n), torch.randn(n, n), torch.randn(batch, n, n),
            torch.randn(batch, n, n), torch.randn(n, n)]


def get_init_inputs():
    return []
