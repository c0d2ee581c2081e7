"""A Linear read through TMA: its input is a buffer whose rows are 16-byte multiples (72 fp32),
so _gemm_tma hands the kernel tensor descriptors of the input and the weight, and the K loop
takes a full step of 64 and a partial one (TMA fills zeros past K, and past the 13 rows and
19 features of the partial tiles).
# KNOB: gemm=triton
# CHECK: from triton.tools.tensor_descriptor import TensorDescriptor
# CHECK: def _gemm_tma(
# CHECK: a = a_desc.load([m0, k0])
# CHECK: b = b_desc.load([n0, k0]).T
# CHECK: tl.dot(a, b, acc, input_precision="tf32x3")
# CHECK: = _gemm_tma(x, p_fc_weight, s0, s2, s1, 1, 4)
# CHECK: TMA=A_DESC is not None
"""
import torch
import torch.nn as nn

batch_size = 13
in_features = 72
out_features = 19


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.sigmoid(self.fc(x)) * 2.0


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
