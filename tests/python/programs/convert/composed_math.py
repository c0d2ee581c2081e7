"""Calls drtriton has no operator for, which import composes from operators (ir/
pytorch_decompose.cpp): log1p and expm1 in their exact forms near 0 (checked against float64
on values down to 1e-6), sinh through expm1, cosh, log2, log10, exp2, isnan and isinf, any and
all over a dim, binary_cross_entropy with a weight (PyTorch's logs clamped at -100, and
log1p(-p)), cosine_embedding_loss with a margin, adaptive_avg_pool1d (a 2-d pool of a
[N, C, 1, L] view), torch.where with a number for both values, clamp with tensor bounds
(maximum, then minimum), powers of two tensors (a negative base with integer exponents) and of
a number; and a sum given its input's own dtype (`dtype=torch.float32`, nothing
to do).
# CHECK-NOT: torch.log1p
# CHECK-NOT: torch.expm1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 4
features = 12


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("weight", torch.linspace(0.5, 1.5, features))

    def forward(self, x, p, t):
        target = torch.sigmoid(t)  # in [0, 1] on every input set the verifier draws
        small = x * 1e-3
        math = torch.log1p(small) + torch.expm1(small) * 2 + torch.sinh(small) \
            + torch.cosh(x * 0.5) + torch.log2(x.abs() + 0.5) + torch.log10(x.abs() + 0.5) \
            + torch.exp2(x)
        flags = torch.isnan(torch.sqrt(x)).float() + torch.isinf(1.0 / (x * (x > 0))).float()
        rows = (x[:, :2] > -1.0).all(dim=1).float() * 2 + (x > 1.0).any(dim=1, keepdim=False).float()
        bce = F.binary_cross_entropy(torch.sigmoid(p), target, weight=self.weight)
        sign = torch.where(target[:, 0] > 0.5, 1.0, -1.0)
        emb = F.cosine_embedding_loss(x, p, sign, margin=0.1, reduction="sum")
        pooled = F.adaptive_avg_pool1d(x.view(x.shape[0], 3, -1), 3)
        bounded = torch.clamp(x, min=p, max=t[:1]) + torch.clamp(x, max=p) + x.clamp(min=t)
        powers = torch.pow(x, torch.round(p * 2)) + 2 ** small + x.abs() ** t
        return math + flags, rows + x.sum(1, dtype=torch.float32), bce + emb, pooled, bounded, powers


def get_inputs():
    return [torch.randn(batch, features), torch.randn(batch, features),
            torch.randn(batch, features)]


def get_init_inputs():
    return [features]
