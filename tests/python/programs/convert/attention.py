"""Scaled dot-product attention as one flash-attention kernel each (online softmax over key
blocks, no library matmul: the reference's SDPA makes none): head dim 64 with an explicit
scale and a key sequence longer than the query's; causal heads of dim 12 (padded to 16)
split from a Linear by views that fuse into the kernel's loads, with its bias; sequences
that are not a multiple of the block. The products are tl.dot in three TF32 products (fp32 accuracy), not one.
Causal attention with key and value head dims 16 and 8: tests/ir/op_cases/sdpa.ir.
# CHECK-COUNT-2: _sdpa[
# CHECK-COUNT-4: input_precision="tf32x3"
# CHECK-NOT: torch.matmul
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 1
heads = 2
steps = 20
keys = 23


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(24, 72)

    def forward(self, q, k, v, x):
        wide = F.scaled_dot_product_attention(q, k, v, scale=0.2)
        B, T, C = x.shape
        parts = self.qkv(x).reshape(B, T, 3, 2, 12).permute(2, 0, 3, 1, 4)
        split = F.scaled_dot_product_attention(parts[0], parts[1], parts[2], is_causal=True)
        return wide, split.transpose(1, 2).reshape(B, T, C)


def get_inputs():
    return [torch.randn(batch, heads, steps, 64), torch.randn(batch, heads, keys, 64),
            torch.randn(batch, heads, keys, 64), torch.randn(batch, steps, 24)]


def get_init_inputs():
    return []
