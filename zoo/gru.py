"""A recurrent language model (torch's own nn.GRU, two layers, no other library)."""

import torch
from common import run, tokens
from torch import nn

VOCAB = 96


class GRULanguageModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.gru = nn.GRU(32, 64, num_layers=2, batch_first=True)
        self.head = nn.Linear(64, VOCAB)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out, _ = self.gru(self.embed(ids))
        return self.head(out)


def loss_of(model, rng):
    ids = tokens(rng, VOCAB)
    logits = model(ids[:, :-1])
    return nn.functional.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


if __name__ == "__main__":
    run(GRULanguageModel, loss_of)
