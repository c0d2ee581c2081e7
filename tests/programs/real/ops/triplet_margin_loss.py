"""Triplet margin loss on anchor, positive and negative embeddings."""
import torch
import torch.nn as nn

batch_size = 32768
embed_dim = 1024

SMALL = {"batch_size": 4, "embed_dim": 16}


class Model(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor, positive, negative):
        return self.loss_fn(anchor, positive, negative)


def get_inputs():
    return [torch.randn(batch_size, embed_dim), torch.randn(batch_size, embed_dim),
            torch.randn(batch_size, embed_dim)]


def get_init_inputs():
    return [1.0]
