"""LUKE (Hugging Face transformers, tiny configuration): words and entities in one sequence, each
entity's embedding projected up from a narrower table plus the mean of its mention's position
embeddings (padding positions masked out, the sum divided by a clamped count), entity-aware
self-attention (four query projections, one per pair of word and entity kinds, the scores concatenated
blockwise), classified from the first token."""

import numpy as np
import torch
from common import run, tokens
from transformers import LukeConfig, LukeForSequenceClassification

VOCAB, ENTITIES, LABELS = 96, 24, 3


def build() -> LukeForSequenceClassification:
    config = LukeConfig(
        vocab_size=VOCAB, entity_vocab_size=ENTITIES, hidden_size=32, entity_emb_size=16, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=32, num_labels=LABELS,
    )  # fmt: skip
    return LukeForSequenceClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Cross entropy of 4 sequences of 16 random tokens, 2 random entities each whose mentions span 1 to
    3 positions (the rest -1), against random labels."""
    ids = tokens(rng, VOCAB)
    start = rng.integers(0, 13, (4, 2, 1))
    span = np.arange(3)[None, None, :]
    positions = np.where(span < rng.integers(1, 4, (4, 2, 1)), start + span, -1)
    return model(
        input_ids=ids, entity_ids=torch.from_numpy(rng.integers(1, ENTITIES, (4, 2))),
        entity_position_ids=torch.from_numpy(positions), labels=torch.from_numpy(rng.integers(0, LABELS, 4)),
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
