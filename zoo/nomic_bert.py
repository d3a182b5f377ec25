"""Nomic BERT (Hugging Face transformers, tiny configuration): a post-norm BERT encoder without absolute
position embeddings, rotary positions on queries and keys under a bidirectional padding mask instead, a SwiGLU
feed-forward of bias-free projections, LayerNorm after each residual add; masked-LM head of a ``linear``,
SiLU and a LayerNorm, the loss over every other position (-100 elsewhere and on the padding)."""

import torch
from common import run, tokens
from transformers import NomicBertConfig, NomicBertForMaskedLM

VOCAB = 96


def build() -> NomicBertForMaskedLM:
    config = NomicBertConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=96,
        max_position_embeddings=32,
    )  # fmt: skip
    return NomicBertForMaskedLM(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens, the last 3 padding (id 0) under the attention mask."""
    ids = tokens(rng, VOCAB)
    ids[:, 13:] = 0
    mask = torch.ones_like(ids)
    mask[:, 13:] = 0
    labels = ids.clone()
    labels[:, ::2] = -100
    labels[:, 13:] = -100
    return model(input_ids=ids, attention_mask=mask, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
