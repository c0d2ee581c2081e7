import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 12)
        self.drop = nn.Dropout(0.0)

    def forward(self, x):
        x = self.drop(self.fc(x))
        x = torch.mean(x, dim=1, keepdim=True)
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
