"""Sums of integers and bools (issue 14): counts of a mask, of a comparison, of argmax
indices and of int64 ids. PyTorch sums them into int64, exactly; so does the solution, with
int64 accumulators and no float on the way (a float32 sum of 2**24 + 1 ones is off by one).
The long rows of `ids` take the split path: int64 partial sums, combined in int64.
# CHECK: acc = tl.full([BLOCK_M, BLOCK_R], 0, tl.int64)
# CHECK-NOT: acc = tl.full([BLOCK_M, BLOCK_R], 0.0, tl.float32)
"""
import torch
import torch.nn as nn

batch = 8
features = 16
length = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask, ids):
        positive = (x > 0).sum()
        per_row = mask.sum(dim=1)
        where_max = torch.argmax(x, dim=1).sum()
        total = ids.sum(dim=1, keepdim=True)
        return positive, per_row, where_max, total


def get_inputs():
    return [torch.randn(batch, features), torch.rand(batch, features) > 0.5,
            torch.randint(0, 1 << 40, (2, length))]


def get_init_inputs():
    return []
