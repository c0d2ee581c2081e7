"""A convolutional autoencoder: strided conv encoder, transposed-conv decoder, sigmoid reconstruction."""
import torch
import torch.nn as nn

batch_size = 128
channels = 3
image_size = 64
base = 32

SMALL = {"batch_size": 2, "image_size": 8, "base": 2}


class Model(nn.Module):
    def __init__(self, channels, base):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(channels, base, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv2d(base, 2 * base, 4, stride=2, padding=1), nn.BatchNorm2d(2 * base), nn.LeakyReLU(0.2),
            nn.Conv2d(2 * base, 4 * base, 4, stride=2, padding=1), nn.BatchNorm2d(4 * base), nn.LeakyReLU(0.2))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(4 * base, 2 * base, 4, stride=2, padding=1), nn.BatchNorm2d(2 * base), nn.ReLU(),
            nn.ConvTranspose2d(2 * base, base, 4, stride=2, padding=1), nn.BatchNorm2d(base), nn.ReLU(),
            nn.ConvTranspose2d(base, channels, 4, stride=2, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


def get_inputs():
    return [torch.randn(batch_size, channels, image_size, image_size)]


def get_init_inputs():
    return [channels, base]
