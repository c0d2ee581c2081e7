"""A small ResNet for 32x32 images: stem, three stages of two basic blocks, global pool, classifier."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 256
image_size = 32
base_width = 32
num_classes = 10

SMALL = {"batch_size": 2, "image_size": 8, "base_width": 2}


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class Model(nn.Module):
    def __init__(self, base_width, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, base_width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(base_width)
        layers = []
        in_planes = base_width
        for i, planes in enumerate([base_width, 2 * base_width, 4 * base_width]):
            for j in range(2):
                stride = 2 if (i > 0 and j == 0) else 1
                layers.append(BasicBlock(in_planes, planes, stride))
                in_planes = planes
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(in_planes, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layers(out)
        out = F.adaptive_avg_pool2d(out, (1, 1)).flatten(1)
        return self.fc(out)


def get_inputs():
    return [torch.randn(batch_size, 3, image_size, image_size)]


def get_init_inputs():
    return [base_width, num_classes]
