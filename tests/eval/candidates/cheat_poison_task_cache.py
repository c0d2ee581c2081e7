# task: relu_scale.py  expect: rejected at correct because modified its input  layer: runtime
# The task cache (python/drtriton/verifier/task_cache.py): a candidate writes into whatever it
# can reach, its input in place and every tensor the garbage collector knows (the audit hook
# refuses that), so that the next candidates of the task in this worker would be judged
# against its values. tests/python/test_verifier_task_cache.py judges two after it.
import gc

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * scale, mask=mask)
    tl.store(x_ptr + offs, x * 0.0 + 1.0, mask=mask)  # the input, overwritten


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        try:
            for obj in gc.get_objects():
                if isinstance(obj, torch.Tensor) and obj.is_floating_point():
                    obj.fill_(1.0)
        except PermissionError:
            pass
        out = torch.empty_like(x)
        relu_scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), self.scale, BLOCK=1024)
        return out
