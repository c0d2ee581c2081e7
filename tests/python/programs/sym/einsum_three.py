"""A three-operand einsum (a state-space scan's closed form): where opt_einsum is installed,
torch asks it for a contraction order, which reads every size."""
import torch
import torch.nn as nn

batch_size = 4
seq_len = 12
channels = 8


class Model(nn.Module):
    def forward(self, cb, decay, x):
        return torch.einsum("bts,btsd,bsd->btd", cb, decay, x)


def get_inputs():
    return [torch.randn(batch_size, seq_len, seq_len),
            torch.randn(batch_size, seq_len, seq_len, channels),
            torch.randn(batch_size, seq_len, channels)]


def get_init_inputs():
    return []
