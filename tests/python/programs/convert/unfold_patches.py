"""Tensor.unfold in windows that neither overlap nor skip, composed at import as a reshape
and a permute (ir/pytorch_decompose.cpp): a ViT's patches (unfold over height, then width),
a class token in front, a Linear embedding; and a 1-d unfold whose remainder is dropped.
# CHECK-NOT: .unfold(
"""
import torch
import torch.nn as nn

batch = 2
patch = 4
dim = 8


class Model(nn.Module):
    def __init__(self, channels, patch, dim):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(channels * patch * patch, dim)
        self.cls = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, img, signal):
        p = self.patch
        b = img.shape[0]
        x = img.unfold(2, p, p).unfold(3, p, p).reshape(b, -1, img.shape[1] * p * p)
        x = torch.cat((self.cls.expand(b, -1, -1), self.embed(x)), dim=1)
        frames = signal.unfold(-1, 3, 3)
        return x, frames.sum(-1)


def get_inputs():
    return [torch.randn(batch, 3, 8, 12), torch.randn(batch, 2, 11)]


def get_init_inputs():
    return [3, patch, dim]
