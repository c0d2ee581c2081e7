"""Cross entropy in the forms PyTorch offers, composed at import (ir/pytorch_decompose.cpp):
class targets with label smoothing under each reduction, an ignore_index that the targets
hit (the smoothed mean divides by the targets kept), and class probabilities as targets,
smoothed and not. Targets 0..9 of 10 classes: ignore_index 2 and 3 are drawn.
# CHECK-NOT: F.cross_entropy
# CHECK-NOT: label_smoothing
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 8
classes = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t, p):
        mean = F.cross_entropy(x, t, label_smoothing=0.1)
        total = F.cross_entropy(x, t, label_smoothing=0.2, reduction="sum")
        each = F.cross_entropy(x, t, label_smoothing=0.05, reduction="none", ignore_index=3)
        kept_mean = F.cross_entropy(x, t, label_smoothing=0.1, ignore_index=2)
        soft = F.cross_entropy(x, p.softmax(1))
        soft_each = F.cross_entropy(x, p.softmax(1), label_smoothing=0.1, reduction="none")
        return mean + total + kept_mean + soft, each, soft_each


def get_inputs():
    return [torch.randn(batch, classes), torch.randint(0, classes, (batch,)),
            torch.randn(batch, classes)]


def get_init_inputs():
    return []
