"""Other spellings of known operations, as a trace of ordinary code produces them: `w.T`,
`x.mT`, swapaxes, movedim, torch.multiply/subtract/divide, clip, x.clone().detach(). The
import renames each to one canonical operation (permute, transpose, mul, clone...).
# CHECK-NOT: detach
"""
import torch
import torch.nn as nn

batch = 4
rows = 6
features = 8


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, features))

    def forward(self, x, y):
        h = torch.multiply(x @ self.w.T, 0.5)                    # [batch, rows, 16]
        h = torch.subtract(h, y.mT.swapaxes(1, 2).sum(dim=-1, keepdim=True))
        h = h.clone().detach()
        m = h.unsqueeze(0).movedim([0, 1], [3, 2])               # [rows, 16, batch, 1]
        return torch.clip(torch.divide(m, 3.0), -1.0, 1.0)


def get_inputs():
    return [torch.randn(batch, rows, features), torch.randn(batch, rows, features)]


def get_init_inputs():
    return [features]
