import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, image, patch, dim, classes):
        super().__init__()
        n = (image // patch) ** 2
        self.patch = patch
        self.embed = nn.Linear(3 * patch * patch, dim)
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim))
        self.cls = nn.Parameter(torch.randn(1, 1, dim))
        self.block = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=dim * 2, dropout=0.0, batch_first=True)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, classes))

    def forward(self, img):
        p = self.patch
        b = img.shape[0]
        x = img.unfold(2, p, p).unfold(3, p, p).reshape(b, -1, 3 * p * p)
        x = self.embed(x)
        cls = self.cls.expand(b, -1, -1)
        x = torch.cat((cls, x), dim=1)
        x = x + self.pos
        x = self.block(x)
        return self.head(x[:, 0])


def get_inputs():
    return [torch.randn(2, 3, 8, 8)]


def get_init_inputs():
    return [8, 4, 8, 5]
