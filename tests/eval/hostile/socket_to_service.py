# task: relu_scale.py  expect: rejected at load because network access blocked
# Item 3: connects to the service's own port and to a listener of the test, on loopback.
import torch
import torch.nn as nn
import triton
import triton.language as tl

import socket

for port in (__SERVICE_PORT__, __LISTEN_PORT__):
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    s.sendall(b"GET /stats HTTP/1.0\r\n\r\n")

@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * scale, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out
