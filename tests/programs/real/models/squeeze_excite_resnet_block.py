"""SE-ResNet basic block: conv-bn-relu-conv-bn, squeeze-and-excitation with Linear layers, residual, ReLU."""
import torch
import torch.nn as nn

batch_size = 64
channels = 128
height = 28
width = 28
reduction = 16

SMALL = {"batch_size": 2, "channels": 4, "height": 5, "width": 5, "reduction": 2}


class Model(nn.Module):
    def __init__(self, channels, reduction):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Sequential(
            nn.Linear(channels, channels // reduction, bias=False),
            nn.ReLU(inplace=True),
            nn.Linear(channels // reduction, channels, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        b, c, _, _ = out.size()
        w = self.fc(self.avg_pool(out).view(b, c)).view(b, c, 1, 1)
        return torch.relu(out * w + x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, reduction]
