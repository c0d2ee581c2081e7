# task: relu_scale.py  expect: rejected at faithful because the reference makes 0  layer: runtime
# The same as cheat_rnn_as_relu through the aten operator, not torch.rnn_relu (the Python
# function the verifier counts recurrent layers at). The static checks refuse torch.ops; with
# them off, the op recorder must still see what the RNN runs below, which the reference does
# not make either.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        rows, cols = x.shape
        w_ih = torch.eye(cols, device=x.device, dtype=x.dtype) * self.scale
        w_hh = torch.zeros(cols, cols, device=x.device, dtype=x.dtype)
        h0 = torch.zeros(1, rows, cols, device=x.device, dtype=x.dtype)
        y, _ = torch.ops.aten.rnn_relu.input(x.unsqueeze(0), h0, [w_ih, w_hh], False, 1, 0.0, False, False, False)
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](y.contiguous(), out, x.numel(), BLOCK=1024)
        return out
