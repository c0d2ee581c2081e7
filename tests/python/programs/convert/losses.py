"""Losses (MSE, L1, smooth L1, Huber, KL divergence, triplet margin, binary cross entropy)
and cosine similarity: no operator of their own, each composed at import from ours (sub,
square, abs, where, norm, reductions) with PyTorch's exact formula. The cross entropy's
targets come from torch.rand: the verifier's redraws keep them within [0, 1], where
PyTorch's own binary_cross_entropy raises on any other value.
# CHECK-NOT: F.mse_loss
# CHECK-NOT: cosine_similarity(
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 8
features = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c, targets):
        mse = F.mse_loss(a, b)
        smooth = F.smooth_l1_loss(a, b, beta=0.5)
        huber = F.huber_loss(a, b, delta=2.0, reduction="sum")
        kl = F.kl_div(torch.log_softmax(a, dim=1), torch.softmax(b, dim=1), reduction="sum")
        cosine = torch.mean(1 - F.cosine_similarity(a, b, dim=1))
        triplet = F.triplet_margin_loss(a, b, c, margin=0.5)
        l1 = F.l1_loss(a, b) + F.l1_loss(a, c, reduction="sum")
        bce = F.binary_cross_entropy(torch.sigmoid(a), targets)
        return mse + smooth + huber + l1, kl, cosine, triplet, bce


def get_inputs():
    return [torch.randn(batch, features), torch.randn(batch, features), torch.randn(batch, features),
            torch.rand(batch, features)]


def get_init_inputs():
    return []
