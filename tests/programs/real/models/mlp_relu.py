"""A multi-layer perceptron with ReLU between layers, sizes given as a list."""
import torch
import torch.nn as nn

batch_size = 1024
input_size = 4096
hidden_sizes = [4096, 2048, 1024]
output_size = 1000

SMALL = {"batch_size": 4, "input_size": 16, "hidden_sizes": [12, 8, 8], "output_size": 5}


class Model(nn.Module):
    def __init__(self, input_size, layer_sizes, output_size):
        super().__init__()
        layers = []
        current = input_size
        for size in layer_sizes:
            layers.append(nn.Linear(current, size))
            layers.append(nn.ReLU())
            current = size
        layers.append(nn.Linear(current, output_size))
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


def get_inputs():
    return [torch.randn(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_sizes, output_size]
