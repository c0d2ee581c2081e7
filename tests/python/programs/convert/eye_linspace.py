"""Tensors made in forward by factories with no tensor input: torch.eye (a mask that keeps a
matrix's diagonal, and a bool one that removes it) and torch.linspace (a ramp from -1 to 2 over
the columns, odd and even step counts: PyTorch computes its two halves from either end). The
sizes are written out: torch.export fixes a factory's size."""
import torch
import torch.nn as nn

batch_size = 4

SMALL = {"batch_size": 2}


class Model(nn.Module):
    def forward(self, x, scores):
        identity = torch.eye(16, device=x.device)
        off_diagonal = ~torch.eye(16, dtype=torch.bool, device=x.device)
        ramp = torch.linspace(-1.0, 2.0, 16, device=x.device)
        odd = torch.linspace(0.5, -3.0, 7, device=x.device)
        kept = (x @ (identity * 3.0)) * ramp
        masked = torch.where(off_diagonal, scores, torch.zeros_like(scores))
        return kept, masked.sum(dim=0), odd * x[:, :7]


def get_inputs():
    return [torch.randn(batch_size, 16), torch.randn(16, 16)]


def get_init_inputs():
    return []
