"""DeBERTa-v2 (Hugging Face transformers, tiny configuration): disentangled attention with relative positions."""

import numpy as np
import torch
from common import run, tokens
from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

VOCAB = 96


def build() -> DebertaV2ForSequenceClassification:
    config = DebertaV2Config(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64, relative_attention=True, position_buckets=8, pos_att_type=["p2c", "c2p"],
        num_labels=3,
    )  # fmt: skip
    return DebertaV2ForSequenceClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: random tokens, random labels of 3 classes."""
    ids = tokens(rng, VOCAB)
    return model(input_ids=ids, labels=torch.from_numpy(rng.integers(0, 3, ids.shape[0]))).loss


if __name__ == "__main__":
    run(build, loss_of)
