"""torch's own nn.TransformerEncoderLayer (post-LN, dropout 0, batch first) on a batch of token sequences."""
import torch
import torch.nn as nn

batch_size = 32
seq_len = 256
d_model = 512
nhead = 8
dim_feedforward = 2048

SMALL = {"batch_size": 2, "seq_len": 4, "d_model": 8, "nhead": 2, "dim_feedforward": 16}


class Model(nn.Module):
    def __init__(self, d_model, nhead, dim_feedforward):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout=0.0, batch_first=True)

    def forward(self, src):
        return self.layer(src)


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, nhead, dim_feedforward]
