"""A small convolutional block: convolution, batch norm (batch statistics, training mode),
ReLU, max pooling, then a classifier head with log-softmax."""
import torch
import torch.nn as nn

batch_size = 4
in_channels = 3
channels = 8
height = 16
width = 16
classes = 10


class Model(nn.Module):
    def __init__(self, in_channels, channels, classes):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        y = y.mean(dim=(2, 3))
        return torch.log_softmax(self.head(y), dim=1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, channels, classes]
