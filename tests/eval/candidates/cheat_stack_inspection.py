# task: relu_scale.py  expect: rejected at static because imports traceback
# Class 7 (stage detection by introspection): the candidate reads the call stack and skips
# its work in the no-op test and in timed runs. Refused statically; at run time the stack
# is the same in every stage anyway (test_verifier.py::test_every_forward_sees_the_same_stack).
import torch
import torch.nn as nn
import triton
import triton.language as tl

import traceback


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        names = [frame.name for frame in traceback.extract_stack()]
        n = 1 if ("timed" in names or "bench" in names) else x.numel()
        out = torch.empty_like(x)
        relu_scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, self.scale, BLOCK=1024)
        return out
