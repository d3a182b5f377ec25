"""LiLT (Hugging Face transformers, tiny configuration): a text stream and a layout stream a quarter its
width side by side, each token's integer box (0 to 1000) through x, y, height and width embeddings
concatenated and projected; in every layer both streams' attention scores are scaled and added to each
other (bi-directional attention complementation) before their own softmax, the layout stream's values,
feed-forward and norms its own; token classification over the text stream."""

import numpy as np
import torch
from common import run, tokens
from transformers import LiltConfig, LiltForTokenClassification

VOCAB, LENGTH = 96, 16


def build() -> LiltForTokenClassification:
    config = LiltConfig(
        vocab_size=VOCAB, hidden_size=96, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=40, channel_shrink_ratio=4, num_labels=5,
    )  # fmt: skip
    return LiltForTokenClassification(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens, the last 3 padding (id 1, the pad id, boxes of zeros, label -100); boxes
    (x0, y0, x1, y1) in 0..1000 with x1 >= x0 and y1 >= y0; random labels."""
    ids = tokens(rng, VOCAB, 4, LENGTH)
    ids[:, 13:] = 1
    mask = torch.ones_like(ids)
    mask[:, 13:] = 0
    corner = rng.integers(0, 800, (4, LENGTH, 2))
    bbox = np.concatenate([corner, corner + rng.integers(0, 200, (4, LENGTH, 2))], -1)
    bbox[:, 13:] = 0
    labels = torch.from_numpy(rng.integers(0, 5, (4, LENGTH)))
    labels[:, 13:] = -100
    return model(input_ids=ids, bbox=torch.from_numpy(bbox), attention_mask=mask, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
