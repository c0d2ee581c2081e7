import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1)
        b = F.scaled_dot_product_attention(q, k, v, attn_mask=k[:, :, :, :1] > 0)
        return a, b


def get_inputs():
    return [torch.randn(2, 2, 4, 8), torch.randn(2, 2, 4, 8), torch.randn(2, 2, 4, 8)]


def get_init_inputs():
    return []
