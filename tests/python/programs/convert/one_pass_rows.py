"""Softmax, log-softmax, layer and RMS norms over trailing rows, each in one pass: a kernel
that computes a row's statistics and writes the elementwise chain after it to the output (a
persistent reduction). Rows of 64 fit in a tile and are loaded once; rows of 4500 do not,
and are read in two loops (the statistics, then the output), with tiles of 1024 elements (rows
of up to four tiles fit: wide_rows_in_registers.py).
# KNOB: tile_elements=1024
# CHECK: def k0_softmax_rows(
# CHECK: def k1_layer_norm_rows(
# CHECK: def k2_log_softmax_rows(
# CHECK: def k3_rms_norm_rows(
# CHECK-COUNT-4: def k
# CHECK-COUNT-4: for c0 in range(0, COLS, BLOCK_R):
# CHECK-NOT: row_statistic
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

rows = 8
short = 64
long = 4500


class Model(nn.Module):
    def __init__(self, short, long):
        super().__init__()
        self.norm = nn.LayerNorm(short)
        self.rms = nn.RMSNorm(long)

    def forward(self, x, w, z, u):
        a = torch.softmax(x, dim=-1) * 2.0
        b = F.gelu(self.norm(w))
        c = torch.log_softmax(z, dim=1) - 1.0
        d = torch.tanh(self.rms(u)) + u
        return a, b, c, d


def get_inputs():
    return [torch.randn(rows, short), torch.randn(rows, 2, short), torch.randn(6, long),
            torch.randn(3, 2, long)]


def get_init_inputs():
    return [short, long]
