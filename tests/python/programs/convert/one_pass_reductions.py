"""Reductions over trailing rows whose value reaches one program output only through
elementwise nodes and broadcasts are one kernel per tile of rows, as one-pass normalizations
are (lower_in_one_pass, row_chain): an L2 normalization (F.normalize: a norm, a clamp and an
expand at the rows), an L1 one with the sum kept as a row vector and unsqueezed, a centred
row by its maximum, a row standardized by its mean and standard deviation (both reductions,
one Welford accumulator, in one kernel: a layer norm written out), each in rows that fit in
registers; and a log-sum-exp subtracted over rows too long for a tile (two loops). A mean
that another output also returns keeps its statistics kernel, and so does the row sum of a
square matrix subtracted from it without keepdim (broadcast along the rows: each element
reads another row's sum).
# CHECK-COUNT-5: _rows[
# CHECK-COUNT-2: _stats[
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 6
features = 40
long = 5000


class Model(nn.Module):
    def forward(self, x, z, w, y, v, u, q):
        l2 = F.normalize(x, p=2.0, dim=1)
        l1 = z / z.abs().sum(dim=1).unsqueeze(1).clamp_min(1e-6)
        top = w - w.amax(dim=-1, keepdim=True) * 0.5
        lse = y - torch.logsumexp(y, dim=1, keepdim=True)
        standard = (u - u.mean(-1, keepdim=True)) / (u.std(-1, keepdim=True) + 1e-6)
        mean = v.mean(dim=1, keepdim=True)
        across = q - q.sum(1)
        return l2, l1, top, lse, standard, v * mean, mean, across


def get_inputs():
    # Rows of different widths: statistics of rows alike would share one kernel instead.
    return [torch.randn(batch, features), torch.randn(batch, features - 16),
            torch.randn(batch, features - 7), torch.randn(batch, long),
            torch.randn(batch, features + 9), torch.randn(batch, features + 3),
            torch.randn(batch, batch)]


def get_init_inputs():
    return []
