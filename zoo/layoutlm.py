"""LayoutLM (Hugging Face transformers, tiny configuration): BERT whose input embedding adds each
token's bounding box, four 2-D position lookups and the box's height and width."""

import numpy as np
import torch
from common import run, tokens
from transformers import LayoutLMConfig, LayoutLMForSequenceClassification

VOCAB = 96


def build() -> LayoutLMForSequenceClassification:
    config = LayoutLMConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, max_2d_position_embeddings=64, num_labels=3,
    )  # fmt: skip
    return LayoutLMForSequenceClassification(config)


def loss_of(model, rng):
    ids = tokens(rng, VOCAB)
    corner = rng.integers(0, 32, (*ids.shape, 2))
    size = rng.integers(1, 32, (*ids.shape, 2))
    bbox = torch.from_numpy(np.concatenate([corner, corner + size], axis=-1))  # x0, y0, x1, y1
    labels = torch.from_numpy(rng.integers(0, 3, ids.shape[0]))
    return model(input_ids=ids, bbox=bbox, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
