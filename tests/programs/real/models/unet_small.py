"""A two-level U-Net: double-conv encoder, max-pool downsampling, transposed-conv upsampling, skip concatenation."""
import torch
import torch.nn as nn

batch_size = 16
in_channels = 3
out_channels = 2
image_size = 128
features = 32

SMALL = {"batch_size": 2, "image_size": 8, "features": 2}


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, features):
        super().__init__()
        f = features
        self.enc1 = double_conv(in_channels, f)
        self.enc2 = double_conv(f, 2 * f)
        self.bottleneck = double_conv(2 * f, 4 * f)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * f, 2 * f, 2, stride=2)
        self.dec2 = double_conv(4 * f, 2 * f)
        self.up1 = nn.ConvTranspose2d(2 * f, f, 2, stride=2)
        self.dec1 = double_conv(2 * f, f)
        self.final = nn.Conv2d(f, out_channels, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottleneck(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.final(d1)


def get_inputs():
    return [torch.randn(batch_size, in_channels, image_size, image_size)]


def get_init_inputs():
    return [in_channels, out_channels, features]
