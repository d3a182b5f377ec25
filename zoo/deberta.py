"""DeBERTa (v1, Hugging Face transformers, tiny configuration): what DeBERTa-v2 does not have: one fused
bias-free query-key-value projection with the query and value biases added after it, a layer norm written
out in ops (mean, squared deviation, square root, division), relative positions taken directly
(``q - k`` clamped to the span, no log buckets), gathered from both c2p and p2c scores, and a
padding mask filled with the float minimum before the softmax; a masked language model head."""

import numpy as np
import torch
from common import run, tokens
from transformers import DebertaConfig, DebertaForMaskedLM

VOCAB = 96


def build() -> DebertaForMaskedLM:
    config = DebertaConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64, relative_attention=True, max_relative_positions=8,
        pos_att_type=["c2p", "p2c"], position_biased_input=False,
    )  # fmt: skip
    return DebertaForMaskedLM(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The masked-LM loss of a batch of 4 random sequences of 16 tokens, the last 0 to 5 of each padded
    (attention mask 0, label -100)."""
    ids = tokens(rng, VOCAB)
    mask = np.ones(tuple(ids.shape), np.int64)
    for row, pad in enumerate(rng.integers(0, 6, ids.shape[0])):
        mask[row, ids.shape[1] - pad :] = 0
    labels = ids.masked_fill(torch.from_numpy(mask) == 0, -100)
    return model(input_ids=ids, attention_mask=torch.from_numpy(mask), labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
