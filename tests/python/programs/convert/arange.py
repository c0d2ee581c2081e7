"""torch.arange inside forward: position embeddings read through arange(t) (GPT style), a
length mask made by comparing an arange with per-row lengths, every other column picked
through arange(0, t, 2), and a float ramp with a fractional step. Each arange is index
arithmetic inside the kernel that reads it, with its length taken from the input's size.
# CHECK-NOT: torch.arange
# CHECK-NOT: torch.ops.aten
"""
import torch
import torch.nn as nn

batch = 3
length = 10
vocab = 17
features = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(vocab, features)
        self.positions = nn.Embedding(32, features)

    def forward(self, ids, lengths, x):
        t = ids.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=ids.device).unsqueeze(0)
        h = self.tokens(ids) + self.positions(pos)
        keep = torch.arange(t, device=ids.device)[None, :] < lengths[:, None]
        masked = h.masked_fill(~keep.unsqueeze(-1), 0.0)
        every_other = x[:, torch.arange(0, x.size(1), 2, device=x.device)]
        ramp = x * torch.arange(0.0, 1.0, 0.125, device=x.device)
        return masked, every_other, ramp


def get_inputs():
    return [torch.randint(0, vocab, (batch, length)), torch.randint(1, length + 1, (batch,)),
            torch.randn(batch, features)]


def get_init_inputs():
    return []
