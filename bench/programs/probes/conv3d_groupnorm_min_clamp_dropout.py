import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, 3)
        self.gn = nn.GroupNorm(2, 8)
        self.drop = nn.Dropout(0.2)

    def forward(self, x):
        x = self.gn(self.conv(x))
        x = torch.min(x, torch.tensor(0.5, device=x.device))
        x = torch.clamp(x, min=0.0, max=1.0)
        return self.drop(x)


def get_inputs():
    return [torch.randn(2, 3, 6, 6, 6)]


def get_init_inputs():
    return []
