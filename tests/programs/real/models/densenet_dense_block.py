"""A DenseNet dense block: each layer (BN, ReLU, 3x3 conv) sees the concatenation of all earlier outputs."""
import torch
import torch.nn as nn

batch_size = 32
num_input_features = 64
growth_rate = 32
num_layers = 6
height = 56
width = 56

SMALL = {"batch_size": 2, "num_input_features": 3, "growth_rate": 2, "num_layers": 3, "height": 5, "width": 5}


class Model(nn.Module):
    def __init__(self, num_layers, num_input_features, growth_rate):
        super().__init__()
        self.layers = nn.ModuleList()
        for i in range(num_layers):
            c = num_input_features + i * growth_rate
            self.layers.append(nn.Sequential(
                nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                nn.Conv2d(c, growth_rate, kernel_size=3, padding=1, bias=False), nn.Dropout(0.0)))

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(torch.cat(features, 1)))
        return torch.cat(features, 1)


def get_inputs():
    return [torch.randn(batch_size, num_input_features, height, width)]


def get_init_inputs():
    return [num_layers, num_input_features, growth_rate]
