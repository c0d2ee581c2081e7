import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 12)
        self.inorm = nn.InstanceNorm2d(1, eps=1e-5, momentum=0.1)

    def forward(self, x, y):
        x = self.fc(x)
        x = self.inorm(x.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1)
        x = x + y
        return x * y


def get_inputs():
    return [torch.randn(8, 16), torch.randn(8, 12)]


def get_init_inputs():
    return []
