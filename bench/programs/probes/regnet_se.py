import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, group_width):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(cout, cout, 3, stride=2, padding=1, groups=cout // group_width, bias=False),
                               nn.BatchNorm2d(cout), nn.ReLU())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cout, cout // 4, 1), nn.ReLU(),
                                nn.Conv2d(cout // 4, cout, 1), nn.Sigmoid())
        self.c = nn.Sequential(nn.Conv2d(cout, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.proj = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=2, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b(self.a(x))
        y = y * self.se(y)
        return torch.relu(self.c(y) + self.proj(x))


def get_inputs():
    return [torch.randn(2, 4, 8, 8)]


def get_init_inputs():
    return [4, 8, 4]
