"""An fp16 Linear and a ReLU: plain tl.dot on fp16 operands into fp32, no tf32x3; the store
rounds to fp16.
# KNOB: gemm=triton
# CHECK: tl.dot(a, b, acc)
# CHECK-NOT: tf32x3
# CHECK-NOT: F.linear
"""
import torch
import torch.nn as nn

batch_size = 10
in_features = 32
out_features = 24


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).half()

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(batch_size, in_features, dtype=torch.float16)]


def get_init_inputs():
    return [in_features, out_features]
