"""Linear, Dropout with p=0 (a no-op kept from a config), softmax over the classes."""
import torch
import torch.nn as nn

batch_size = 1024
in_features = 8192
num_classes = 4096

SMALL = {"batch_size": 4, "in_features": 16, "num_classes": 10}


class Model(nn.Module):
    def __init__(self, in_features, num_classes, dropout_p):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        return torch.softmax(self.dropout(self.fc(x)), dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, num_classes, 0.0]
