"""RoFormer (Hugging Face transformers, tiny configuration): rotary positions from a fixed sinusoidal
table (sin and cos interleaved by stacking and reshaping, applied to queries and keys as
``x * cos + rotate_every_two(x) * sin``), a masked-language-model head."""

import numpy as np
import torch
from common import run, tokens
from transformers import RoFormerConfig, RoFormerForMaskedLM

VOCAB = 96


def build() -> RoFormerForMaskedLM:
    config = RoFormerConfig(
        vocab_size=VOCAB, embedding_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=32, rotary_value=True,
    )  # fmt: skip
    return RoFormerForMaskedLM(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The masked-language-model loss of random tokens, every token its own label."""
    ids = tokens(rng, VOCAB)
    return model(input_ids=ids, labels=ids).loss


if __name__ == "__main__":
    run(build, loss_of)
