"""A reduction over the middle dim of a transposed tensor reads each row contiguously in
memory (x.transpose(1, 2): the reduced dim is x's last): its tiles take whole rows, as for any
last-dim reduction, not the many-rows-few-columns tiles of a sum over a middle dim that is
strided in memory. Ragged sizes; one of each kind."""
# CHECK-COUNT-1: = _row_tile(
# CHECK-COUNT-1: = _tile_rows(
import torch
import torch.nn as nn

batch = 3
rows = 7
cols = 37


class Model(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.centre = nn.Parameter(torch.randn(1, cols, 1))

    def forward(self, x, y):
        norms = torch.linalg.vector_norm(x.transpose(1, 2) - self.centre, dim=1)
        return norms, y.sum(dim=1)


def get_inputs():
    return [torch.randn(batch, rows, cols), torch.randn(batch, cols, rows)]


def get_init_inputs():
    return [cols]
