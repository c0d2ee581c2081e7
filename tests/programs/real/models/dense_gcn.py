"""Two graph-convolution layers on a dense normalized adjacency: relu(A (X W1)), then A (H W2), log_softmax."""
import torch
import torch.nn as nn
import torch.nn.functional as F

num_nodes = 4096
in_features = 512
hidden = 256
num_classes = 16

SMALL = {"num_nodes": 6, "in_features": 5, "hidden": 4, "num_classes": 3}


class Model(nn.Module):
    def __init__(self, in_features, hidden, num_classes):
        super().__init__()
        self.w1 = nn.Linear(in_features, hidden, bias=False)
        self.w2 = nn.Linear(hidden, num_classes, bias=False)

    def forward(self, x, adj):
        h = torch.relu(adj @ self.w1(x))
        return F.log_softmax(adj @ self.w2(h), dim=1)


def get_inputs():
    adj = torch.rand(num_nodes, num_nodes)
    adj = adj / adj.sum(dim=1, keepdim=True)
    return [torch.randn(num_nodes, in_features), adj]


def get_init_inputs():
    return [in_features, hidden, num_classes]
