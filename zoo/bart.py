"""BART (Hugging Face transformers, tiny configuration): encoder-decoder with learned positions,
a LayerNorm on the embeddings, GELU."""

import numpy as np
import torch
from common import run, tokens
from transformers import BartConfig, BartForConditionalGeneration

VOCAB = 96


def build() -> BartForConditionalGeneration:
    config = BartConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
    )  # fmt: skip
    return BartForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: random source tokens, random target tokens."""
    return model(input_ids=tokens(rng, VOCAB), labels=tokens(rng, VOCAB)).loss


if __name__ == "__main__":
    run(build, loss_of)
