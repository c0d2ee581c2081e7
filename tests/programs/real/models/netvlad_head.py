"""A NetVLAD pooling head: soft-assign local descriptors to clusters, aggregate residuals, intra- and L2-normalize."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 64
num_features = 400
feature_size = 512
cluster_size = 32

SMALL = {"batch_size": 2, "num_features": 5, "feature_size": 4, "cluster_size": 3}


class Model(nn.Module):
    def __init__(self, cluster_size, feature_size):
        super().__init__()
        self.feature_size = feature_size
        self.cluster_size = cluster_size
        init_sc = 1 / (feature_size ** 0.5)
        self.clusters = nn.Parameter(init_sc * torch.randn(feature_size, cluster_size))
        self.batch_norm = nn.BatchNorm1d(cluster_size)
        self.clusters2 = nn.Parameter(init_sc * torch.randn(1, feature_size, cluster_size))

    def forward(self, x):
        max_sample = x.size(1)
        x = x.view(-1, self.feature_size)
        assignment = torch.matmul(x, self.clusters)
        assignment = self.batch_norm(assignment)
        assignment = F.softmax(assignment, dim=1)
        assignment = assignment.view(-1, max_sample, self.cluster_size)
        a_sum = torch.sum(assignment, dim=1, keepdim=True)
        a = a_sum * self.clusters2
        assignment = assignment.transpose(1, 2)
        x = x.view(-1, max_sample, self.feature_size)
        vlad = torch.matmul(assignment, x).transpose(1, 2)
        vlad = vlad - a
        vlad = F.normalize(vlad)
        vlad = vlad.reshape(-1, self.cluster_size * self.feature_size)
        return F.normalize(vlad)


def get_inputs():
    return [torch.randn(batch_size, num_features, feature_size)]


def get_init_inputs():
    return [cluster_size, feature_size]
