"""LogSoftmax over the vocabulary dimension of language-model logits."""
import torch
import torch.nn as nn

batch_size = 512
vocab = 32000

SMALL = {"batch_size": 4, "vocab": 50}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, logits):
        return self.log_softmax(logits)


def get_inputs():
    return [torch.randn(batch_size, vocab)]


def get_init_inputs():
    return []
