"""A shared trunk with three heads, returning a tuple: class logits, a box regression and the pooled features."""
import torch
import torch.nn as nn

batch_size = 128
in_channels = 64
height = 56
width = 56
num_classes = 80

SMALL = {"batch_size": 2, "in_channels": 3, "height": 6, "width": 6, "num_classes": 4}


class Model(nn.Module):
    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv2d(in_channels, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
            nn.Conv2d(128, 256, 3, stride=2, padding=1), nn.BatchNorm2d(256), nn.ReLU(),
        )
        self.cls = nn.Linear(256, num_classes)
        self.box = nn.Linear(256, 4)

    def forward(self, x):
        f = self.trunk(x).mean(dim=(2, 3))
        return self.cls(f), torch.sigmoid(self.box(f)), f


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, num_classes]
