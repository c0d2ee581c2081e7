import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, predictions, targets):
        return torch.nn.functional.kl_div(torch.log(predictions), targets, reduction='batchmean')


def get_inputs():
    return [torch.randn(4, 9).softmax(-1), torch.randn(4, 9).softmax(-1)]


def get_init_inputs():
    return []
