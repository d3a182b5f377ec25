"""A recurrent tagger (torch's own nn.LSTM, two layers, bidirectional, no other library)."""

import torch
from common import run, tokens
from torch import nn

VOCAB, TAGS = 96, 12


class LSTMTagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.lstm = nn.LSTM(32, 48, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(96, TAGS)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def loss_of(model, rng):
    ids = tokens(rng, VOCAB)
    tags = ids % TAGS  # a tag per token, a function of the token
    logits = model(ids)
    return nn.functional.cross_entropy(logits.reshape(-1, TAGS), tags.reshape(-1))


if __name__ == "__main__":
    run(LSTMTagger, loss_of)
