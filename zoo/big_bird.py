"""BigBird (Hugging Face transformers, tiny configuration): block-sparse attention (sliding, global
and random blocks gathered per head) over 64 tokens."""

import numpy as np
import torch
from common import run, tokens
from transformers import BigBirdConfig, BigBirdForSequenceClassification

VOCAB = 96


def build() -> BigBirdForSequenceClassification:
    config = BigBirdConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=128, attention_type="block_sparse", block_size=4, num_random_blocks=2,
        num_labels=3,
    )  # fmt: skip
    return BigBirdForSequenceClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    ids = tokens(rng, VOCAB, length=64)  # long enough for block-sparse attention (else it falls back to full)
    return model(input_ids=ids, labels=torch.from_numpy(rng.integers(0, 3, ids.shape[0]))).loss


if __name__ == "__main__":
    run(build, loss_of)
