import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 8
channels = 4
size = 16


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.act = nn.ReLU(inplace=True)
        self.skip = nn.Identity()

    def forward(self, x):
        return self.act(self.conv(x)) + self.skip(x)


class Model(nn.Module):
    def __init__(self, c, n_blocks):
        super().__init__()
        self.blocks = nn.ModuleList([Block(c) for _ in range(n_blocks)])
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c * 4 * 4, 10), nn.Dropout(p=0.25))
        self.norm = nn.LayerNorm(10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        x = F.max_pool2d(x, 4)
        x = x.contiguous()
        y = x.view(x.size(0), -1)
        z = torch.flatten(x, 1)
        x = self.head(x) + F.dropout(y, p=0.5)[:, :10] + z[:, :10]
        x = self.norm(x)
        x = self.norm(x)
        values, indices = torch.max(x, dim=1)
        return values, indices


def get_inputs():
    return [torch.randn(batch_size, channels, size, size)]


def get_init_inputs():
    return [channels, 2]
