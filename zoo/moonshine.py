"""Moonshine (Hugging Face transformers, tiny configuration): speech recognition from the raw waveform:
a strided conv1d (stride 64), ``tanh``, a one-group group norm, two strided conv1d with GELU, then an
encoder-decoder with partial rotary positions (14 of each head's 16 dimensions), a SwiGLU decoder."""

import numpy as np
import torch
from common import run, tokens
from transformers import MoonshineConfig, MoonshineForConditionalGeneration

VOCAB = 96


def build() -> MoonshineForConditionalGeneration:
    config = MoonshineConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, encoder_num_hidden_layers=1,
        decoder_num_hidden_layers=1, encoder_num_attention_heads=2, decoder_num_attention_heads=2,
        max_position_embeddings=64, pad_token_id=0,
    )  # fmt: skip
    return MoonshineForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Cross entropy of 2 random transcripts of 16 tokens from 2 random waveforms of 4,000 samples."""
    audio = torch.from_numpy(rng.standard_normal((2, 4000)).astype(np.float32))
    return model(input_values=audio, labels=tokens(rng, VOCAB, batch=2)).loss


if __name__ == "__main__":
    run(build, loss_of)
