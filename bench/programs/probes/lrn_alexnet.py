import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=5, stride=2, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2), nn.Conv2d(8, 12, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.classifier = nn.Sequential(nn.Dropout(p=0.0), nn.Linear(12 * 2 * 2, 16), nn.ReLU(inplace=True),
                                        nn.Dropout(p=0.0), nn.Linear(16, classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def get_inputs():
    return [torch.randn(2, 3, 23, 23)]


def get_init_inputs():
    return [5]
