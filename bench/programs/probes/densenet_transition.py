import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, growth, layers):
        super().__init__()
        self.layers = nn.ModuleList()
        for i in range(layers):
            c = cin + i * growth
            self.layers.append(nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                                             nn.Conv2d(c, growth, 3, padding=1, bias=False), nn.Dropout(0.0)))
        c = cin + layers * growth
        self.transition = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                                        nn.Conv2d(c, cout, 1, bias=False), nn.AvgPool2d(2, 2))

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            x = torch.cat(features, 1)
            features.append(layer(x))
        return self.transition(torch.cat(features, 1))


def get_inputs():
    return [torch.randn(2, 4, 8, 8)]


def get_init_inputs():
    return [4, 6, 3, 2]
