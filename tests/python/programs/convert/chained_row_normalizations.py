"""Normalizations one after another over the same rows, on the way to an output: one kernel a
chain, each stage's statistics from the row in registers. A softmax over the channels of an
NCHW tensor, scaled, then a log-softmax over them; and over the last dim a layer norm, GELU,
a second layer norm without affine parameters, then a softmax; and a softmax then a
log-softmax over channels whose result a pool reads: the chain's kernel writes it for the
pool's. Before, each normalization took a statistics kernel of its own (eight kernels)."""
# CHECK-COUNT-4: def k
# CHECK: def k0_softmax_rows(
# CHECK: def k1_layer_norm_rows(
# CHECK: def k2_softmax_rows(
# CHECK: def k3_avg_pool2d(
# CHECK-NOT: _stats(
import torch
import torch.nn as nn
import torch.nn.functional as F

batch = 3
channels = 20
height, width = 7, 9
features = 48


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln1 = nn.LayerNorm(features)
        self.ln2 = nn.LayerNorm(features, elementwise_affine=False)

    def forward(self, x, h, z):
        a = torch.softmax(x, dim=1) * 1.7
        a = torch.log_softmax(a, dim=1) - 0.3
        b = F.gelu(self.ln1(h))
        b = torch.softmax(self.ln2(b + 1.0), dim=-1)
        c = torch.log_softmax(torch.softmax(z, dim=1) * 0.5, dim=1)
        return a, b, F.avg_pool2d(c, 2)


def get_inputs():
    return [torch.randn(batch, channels, height, width), torch.randn(batch, 5, features),
            torch.randn(batch, channels, height, width)]


def get_init_inputs():
    return [features]
