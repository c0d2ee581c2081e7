import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ct = nn.ConvTranspose3d(3, 4, 3, stride=2, padding=1, output_padding=1)
        self.w = nn.Parameter(torch.tensor(0.5))
        self.norm = nn.LayerNorm((4,))
        self.pool = nn.AvgPool3d(kernel_size=2)

    def forward(self, x):
        x = self.ct(x) + self.w
        x = self.norm(x.permute(0, 2, 3, 4, 1)).permute(0, 4, 1, 2, 3)
        return torch.nn.functional.gelu(self.pool(x))


def get_inputs():
    return [torch.randn(2, 3, 3, 4, 4)]


def get_init_inputs():
    return []
