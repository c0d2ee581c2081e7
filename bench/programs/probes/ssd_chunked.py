import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange


class Model(nn.Module):
    """A chunked state-space scan (structured state space duality style)."""

    def __init__(self, batch, seq, heads, head_dim, state, chunk):
        super().__init__()
        self.chunk = chunk
        self.A = nn.Parameter(torch.randn(batch, seq, heads))
        self.B = nn.Parameter(torch.randn(batch, seq, heads, state))
        self.C = nn.Parameter(torch.randn(batch, seq, heads, state))

    def segment_sums(self, x):
        n = x.size(-1)
        cs = torch.cumsum(x, dim=-1)
        seg = cs[..., :, None] - cs[..., None, :]
        keep = torch.tril(torch.ones(n, n, device=x.device, dtype=torch.bool), diagonal=0)
        return seg.masked_fill(~keep, -torch.inf)

    def forward(self, X):
        Xc, Ac, Bc, Cc = [rearrange(t, "b (c l) ... -> b c l ...", l=self.chunk)
                          for t in (X, self.A, self.B, self.C)]
        Ac = rearrange(Ac, "b c l h -> b h c l")
        A_cum = torch.cumsum(Ac, dim=-1)
        L = torch.exp(self.segment_sums(Ac))
        Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", Cc, Bc, L, Xc)
        decay = torch.exp(A_cum[:, :, :, -1:] - A_cum)
        states = torch.einsum("bclhn,bhcl,bclhp->bchpn", Bc, decay, Xc)
        init = torch.zeros_like(states[:, :1])
        states = torch.cat([init, states], dim=1)
        chunk_decay = torch.exp(self.segment_sums(F.pad(A_cum[:, :, :, -1], (1, 0))))
        new_states = torch.einsum("bhzc,bchpn->bzhpn", chunk_decay, states)
        states = new_states[:, :-1]
        out_decay = torch.exp(A_cum)
        Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", Cc, states, out_decay)
        return rearrange(Y_diag + Y_off, "b c l h p -> b (c l) h p")


batch, seq, heads, head_dim, state, chunk = 2, 16, 2, 4, 3, 4


def get_inputs():
    return [torch.randn(batch, seq, heads, head_dim)]


def get_init_inputs():
    return [batch, seq, heads, head_dim, state, chunk]
