"""Reads through integer indices: a learned table read through an index buffer (Swin's
relative position bias; negative indices count from the end, as in x[-1]), x[:, idx] with a
2-d index given as an input, torch.gather along the last dim and index_select. Each read is
an indexed load inside the kernel that consumes it. And nan_to_num.
# CHECK-NOT: torch.ops.aten
# CHECK-NOT: torch.gather
# CHECK-NOT: torch.index_select
"""
import torch
import torch.nn as nn

batch = 3
rows = 5
features = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(9, 2))
        self.register_buffer("table_index", torch.randint(-9, 9, (rows, rows)))
        self.register_buffer("last_first", torch.tensor([4, 0, 2]))

    def forward(self, x, columns, picks):
        bias = self.table[self.table_index.view(-1)].view(rows, rows, 2).permute(2, 0, 1)
        scores = x @ x.transpose(1, 2)
        biased = scores.unsqueeze(1) + bias
        wide = torch.sigmoid(x)[:, :, columns]
        gathered = torch.gather(x * 2, 2, picks)
        chosen = torch.index_select(x, 1, self.last_first)
        cleaned = torch.nan_to_num(torch.log(x), nan=-1.0, posinf=7.0, neginf=-7.0)
        return biased, wide, gathered, chosen, cleaned


def get_inputs():
    return [torch.randn(batch, rows, features), torch.randint(0, features, (2, 3)),
            torch.randint(0, features, (batch, rows, 4))]


def get_init_inputs():
    return []
