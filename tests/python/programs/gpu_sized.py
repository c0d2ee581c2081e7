import torch
import torch.nn as nn

# Sized for a GPU: materialized, the weights alone would take 768 MiB.
batch_size = 1024
features = 8192


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.fc1 = nn.Linear(features, features)
        self.fc2 = nn.Linear(features, features)
        self.fc3 = nn.Linear(features, features)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        x = torch.sigmoid(self.fc2(x))
        return self.fc3(x) * 0.5


def get_inputs():
    return [torch.randn(batch_size, features).cuda()]


def get_init_inputs():
    return [features]
