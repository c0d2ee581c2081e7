"""Means of group norms: over the channels and positions (one value a sample: mathematically
the mean of the bias, since each group's normalized values average to zero), over the
positions alone (one value a channel), and over the features of a Linear's [N, C] output (the
finishing kernel reads those itself). Neither norm's output is written: each mean comes from
its channels' sums and sums of squares in float64, one statistics kernel reading the
convolution's output once, and a small kernel per sample (a sum of normalized fp32 values
left rounding noise many times eager's, and a GPU verdict rejected it).
# CHECK-COUNT-3: _mean_of_group_norm[(
# CHECK-COUNT-4: dtype=torch.float64)
# CHECK-NOT: k0_group_norm_partial
"""
import torch
import torch.nn as nn

batch = 3
channels = 12
groups = 3
height, width = 9, 7


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, channels, 3)
        self.norm_all = nn.GroupNorm(groups, channels)
        self.norm_positions = nn.GroupNorm(groups, channels, affine=False)
        self.fc = nn.Linear(4, channels)
        self.norm_features = nn.GroupNorm(groups, channels)

    def forward(self, x):
        y = self.conv(x)
        features = self.norm_features(torch.relu(self.fc(x.mean(dim=(2, 3)))))
        return (self.norm_all(y).mean(dim=[1, 2, 3]), self.norm_positions(y * 2.0).mean(dim=(-2, -1)),
                features.mean(dim=1, keepdim=True))


def get_inputs():
    return [torch.randn(batch, 4, height, width)]


def get_init_inputs():
    return []
