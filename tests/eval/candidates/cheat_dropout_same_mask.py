# task: dropout_relu.py  expect: rejected at correct because every candidate run gave the same result
# One fixed seed: the same mask on every call, so the runs do not differ as the reference's do.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def dropout_relu_kernel(x_ptr, seed_ptr, out_ptr, n, p, scale, BLOCK: tl.constexpr,
                        TRAINING: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if TRAINING:
        x = tl.where(tl.rand(tl.load(seed_ptr), offs) >= p, x * scale, 0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    """Dropout as nn.Dropout does it: in training mode each element is zeroed with probability
    p (a Philox stream keyed by a seed drawn from PyTorch's generator on every call) and the
    others scaled by 1/(1-p); in eval mode the identity."""

    def __init__(self, p):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        p = self.dropout.p
        seed = torch.full((1,), 1234, device=x.device) if self.training else None
        dropout_relu_kernel[(triton.cdiv(n, 256),)](x, seed, out, n, p, 1.0 / (1.0 - p), BLOCK=256,
                                                    TRAINING=self.training)
        return out
