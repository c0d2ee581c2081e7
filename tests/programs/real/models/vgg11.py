"""VGG-11 style network: 3x3 conv stacks with ReLU and max pooling, then a fully connected classifier."""
import torch
import torch.nn as nn

batch_size = 8
image_size = 224
num_classes = 1000
width = 64

SMALL = {"batch_size": 2, "image_size": 32, "num_classes": 5, "width": 2}


class Model(nn.Module):
    def __init__(self, num_classes, width):
        super().__init__()
        cfg = [width, "M", 2 * width, "M", 4 * width, 4 * width, "M", 8 * width, 8 * width, "M",
               8 * width, 8 * width, "M"]
        layers = []
        in_channels = 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            else:
                layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
                in_channels = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(8 * width * 7 * 7, 64 * width),
            nn.ReLU(inplace=True),
            nn.Dropout(p=0.0),
            nn.Linear(64 * width, 64 * width),
            nn.ReLU(inplace=True),
            nn.Dropout(p=0.0),
            nn.Linear(64 * width, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [num_classes, width]
