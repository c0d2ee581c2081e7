# task: step_loop.py  expect: passed
# The same loop, a cuBLAS product a step and the bias and tanh in Triton: at the varied sizes
# (seq_len 4 and 6) it makes as many matmuls as the reference does there.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_tanh_kernel(y_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    e = tl.exp(-2.0 * tl.abs(y))
    t = (1.0 - e) / (1.0 + e)
    tl.store(out_ptr + offs, tl.where(y < 0, -t, t), mask=mask)


@triton.jit
def step_cat_kernel(x_ptr, h_ptr, out_ptr, t, S, I, H, n, BLOCK: tl.constexpr):
    """out[b] = [x[b, t], h[b]]: the step's input and the hidden state, side by side."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    b, j = offs // (I + H), offs % (I + H)
    from_x = tl.load(x_ptr + (b * S + t) * I + j, mask=mask & (j < I), other=0.0)
    from_h = tl.load(h_ptr + b * H + (j - I), mask=mask & (j >= I), other=0.0)
    tl.store(out_ptr + offs, tl.where(j < I, from_x, from_h), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.cell = nn.Linear(input_size + hidden_size, hidden_size)

    def forward(self, x, h):
        B, S, I = x.shape
        H = h.shape[1]
        x = x.contiguous()
        for t in range(S):
            both = torch.empty(B, I + H, device=x.device)
            step_cat_kernel[(triton.cdiv(both.numel(), 256),)](x, h, both, t, S, I, H, both.numel(), BLOCK=256)
            y = torch.mm(both, self.cell.weight.t())
            out = torch.empty_like(y)
            n = y.numel()
            bias_tanh_kernel[(triton.cdiv(n, 256),)](y, self.cell.bias, out, n, y.shape[1], BLOCK=256)
            h = out
        return h
