# task: relu_scale.py  expect: rejected at static because syntax error
import torch
import triton


class ModelNew(torch.nn.Module:
    def __init__(self, scale):
        super().__init__()
