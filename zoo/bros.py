"""BROS (Hugging Face transformers, tiny configuration): BERT over text with each token's box, whose
attention adds a score from the relative positions of every pair of boxes (the 8 coordinates' pairwise
differences through ``sin``/``cos`` sinusoids, projected, then ``einsum`` with the queries), and the SPADE
entity-extraction head: initial-token classes and a token-to-token relation over the tokens plus a
learned dummy node, masked by ``eye`` and the padding with the float's lowest value."""

import numpy as np
import torch
from common import run, tokens
from transformers import BrosConfig, BrosSpadeEEForTokenClassification

VOCAB, LENGTH = 96, 16


def build() -> BrosSpadeEEForTokenClassification:
    config = BrosConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, num_labels=3,
    )  # fmt: skip
    return BrosSpadeEEForTokenClassification(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens, the last 3 padding, boxes as fractions of the page (x0, y0, x1, y1);
    random initial-token classes and random links (another token that is not padding, or the dummy node,
    index 16: a link to itself or to padding would be masked to the float's lowest value)."""
    ids = tokens(rng, VOCAB, 4, LENGTH)
    mask = torch.ones_like(ids)
    mask[:, 13:] = 0
    corner = rng.uniform(0, 0.8, (4, LENGTH, 2))
    bbox = torch.from_numpy(np.concatenate([corner, corner + rng.uniform(0.01, 0.2, (4, LENGTH, 2))], -1))
    first = torch.from_numpy(rng.random((4, LENGTH)) < 0.5)
    first[:, 0] = True
    links = rng.integers(0, 13, (4, LENGTH))
    links = np.where(links == 12, LENGTH, links + (links >= np.arange(LENGTH)))
    return model(
        input_ids=ids, bbox=bbox.float(), attention_mask=mask, bbox_first_token_mask=first,
        initial_token_labels=torch.from_numpy(rng.integers(0, 3, (4, LENGTH))),
        subsequent_token_labels=torch.from_numpy(links),
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
