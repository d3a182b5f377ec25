"""LED (Hugging Face transformers, tiny configuration): the Longformer encoder-decoder, its encoder's
attention a sliding window (scores of overlapping chunks by banded matmuls, padded to a multiple of the
window, diagonals shifted into place) with the first token attending globally, BART's decoder."""

import numpy as np
import torch
from common import run, tokens
from transformers import LEDConfig, LEDForConditionalGeneration

VOCAB = 96


def build() -> LEDForConditionalGeneration:
    config = LEDConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_encoder_position_embeddings=32,
        max_decoder_position_embeddings=32, attention_window=4,
    )  # fmt: skip
    return LEDForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Cross entropy of 4 random targets of 16 tokens from 4 random sources of 14 (padded to the window
    inside the model), the first source token global."""
    ids = tokens(rng, VOCAB, length=14)
    global_mask = torch.zeros_like(ids)
    global_mask[:, 0] = 1
    return model(input_ids=ids, global_attention_mask=global_mask, labels=tokens(rng, VOCAB)).loss


if __name__ == "__main__":
    run(build, loss_of)
