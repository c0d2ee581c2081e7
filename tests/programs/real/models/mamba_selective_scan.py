"""A Mamba-style selective state-space layer: input-dependent dt, B, C; the scan done in closed form
with cumulative sums of dt*A (a segment-sum matrix per chunk of the sequence), gated by SiLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 16
seq_len = 128
d_model = 256
d_state = 16
expand = 2

SMALL = {"batch_size": 2, "seq_len": 5, "d_model": 4, "d_state": 3}


class Model(nn.Module):
    def __init__(self, d_model, d_state, expand):
        super().__init__()
        d_inner = expand * d_model
        self.d_state = d_state
        self.in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
        self.x_proj = nn.Linear(d_inner, 1 + 2 * d_state, bias=False)
        self.dt_bias = nn.Parameter(torch.zeros(d_inner))
        self.A_log = nn.Parameter(torch.log(torch.linspace(1.0, 16.0, d_inner)))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)

    def forward(self, u):
        x, z = self.in_proj(u).chunk(2, dim=-1)                        # (B, L, D)
        dbc = self.x_proj(x)
        dt, Bm, Cm = torch.split(dbc, [1, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(dt + self.dt_bias)                               # (B, L, D)
        A = -torch.exp(self.A_log)                                       # (D,)
        a = torch.cumsum(dt * A, dim=1)                                  # (B, L, D) log-decay to step t
        # decay[b, t, s, d] = exp(a_t - a_s) for s <= t, else 0
        diff = a.unsqueeze(2) - a.unsqueeze(1)
        L = x.shape[1]
        causal = torch.tril(torch.ones(L, L, dtype=torch.bool, device=u.device))
        decay = torch.exp(diff.masked_fill(~causal[None, :, :, None], float("-inf")))
        cb = torch.einsum("btn,bsn->bts", Cm, Bm)                        # (B, L, L)
        y = torch.einsum("bts,btsd,bsd->btd", cb, decay, dt * x)
        y = y + x * self.D
        return self.out_proj(y * F.silu(z))


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, d_state, expand]
