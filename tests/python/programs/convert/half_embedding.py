"""Embeddings made fp16 and bf16: the output has the weight's dtype, not float32 (the input
holds indices), and the kernel stores in it.
# CHECK: dtype=torch.bfloat16
"""
import torch
import torch.nn as nn

batch_size = 4
seq = 16
vocab = 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.half_table = nn.Embedding(vocab, 32).half()
        self.bf16_table = nn.Embedding(vocab, 32, dtype=torch.bfloat16)

    def forward(self, ids):
        return self.half_table(ids) * 2, torch.tanh(self.bf16_table(ids))


def get_inputs():
    return [torch.randint(0, vocab, (batch_size, seq))]


def get_init_inputs():
    return []
