"""A conv + InstanceNorm(track_running_stats=True) + ReLU block: each instance's own
statistics in training mode, with the batch's average folded into the running buffers;
the channel's running statistics after .eval() (test_convert_batch_norm.py calls it in
both modes against PyTorch).
# CHECK-COUNT-1: if self.training:
# CHECK: k1_instance_norm2d_running[(1,)]
# CHECK: k2_instance_norm2d_eval[
"""
import torch
import torch.nn as nn

batch = 3
in_channels = 3
channels = 6
size = 9


class Model(nn.Module):
    def __init__(self, in_channels, channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.norm = nn.InstanceNorm2d(channels, affine=True, track_running_stats=True,
                                      momentum=0.2)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, channels]
