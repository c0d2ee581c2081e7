"""Token embeddings (nn.Embedding) mean-pooled over the sequence, then a two-layer MLP classifier."""
import torch
import torch.nn as nn

batch_size = 1024
seq_len = 128
vocab_size = 50000
embed_dim = 512
hidden = 1024
num_classes = 20

SMALL = {"batch_size": 2, "seq_len": 5, "vocab_size": 30, "embed_dim": 8, "hidden": 6, "num_classes": 3}


class Model(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden, num_classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.fc1 = nn.Linear(embed_dim, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, tokens):
        e = self.embedding(tokens).mean(dim=1)
        return self.fc2(torch.relu(self.fc1(e)))


def get_inputs():
    return [torch.randint(0, vocab_size, (batch_size, seq_len))]


def get_init_inputs():
    return [vocab_size, embed_dim, hidden, num_classes]
