import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, squeeze, e1, e3):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, kernel_size=1)
        self.relu = nn.ReLU(inplace=True)
        self.e1 = nn.Conv2d(squeeze, e1, kernel_size=1)
        self.e3 = nn.Conv2d(squeeze, e3, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)

    def forward(self, x):
        x = self.relu(self.squeeze(x))
        x = torch.cat([self.relu(self.e1(x)), self.relu(self.e3(x))], 1)
        return self.pool(x)


def get_inputs():
    return [torch.randn(2, 6, 9, 9)]


def get_init_inputs():
    return [6, 3, 4, 4]
