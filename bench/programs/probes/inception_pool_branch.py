import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin):
        super().__init__()
        self.b1 = nn.Conv2d(cin, 4, 1)
        self.b2 = nn.Sequential(nn.Conv2d(cin, 3, 1), nn.Conv2d(3, 4, 3, padding=1))
        self.b3 = nn.Sequential(nn.Conv2d(cin, 2, 1), nn.Conv2d(2, 4, 5, padding=2))
        self.b4 = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), nn.Conv2d(cin, 4, 1))
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)

    def forward(self, x):
        y = torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1)
        return self.pool(y)


def get_inputs():
    return [torch.randn(2, 3, 9, 9)]


def get_init_inputs():
    return [3]
