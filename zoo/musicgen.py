"""MusicGen (Hugging Face transformers, tiny configuration, the decoder alone): 4 streams of audio codes
in the delay pattern (codebook k delayed by k steps, the gaps padded), each stream embedded and the 4
embeddings summed into one sequence, sinusoidal positions, one language-model head per codebook stacked
into (batch, codebooks, length, vocab), the inputs the codes shifted right after a start token, and the
loss the mean of the 4 codebooks' cross-entropies, the padding ignored."""

import numpy as np
import torch
from common import run
from transformers import MusicgenDecoderConfig, MusicgenForCausalLM

VOCAB, BOOKS, LENGTH = 64, 4, 16


def build() -> MusicgenForCausalLM:
    config = MusicgenDecoderConfig(
        vocab_size=VOCAB, max_position_embeddings=32, num_hidden_layers=2, ffn_dim=64, num_attention_heads=4,
        hidden_size=32, dropout=0.0, num_codebooks=BOOKS, pad_token_id=VOCAB, bos_token_id=VOCAB,
    )  # fmt: skip
    return MusicgenForCausalLM(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of random codes (batch 4, 4 codebooks) laid out in the delay pattern over 16 steps."""
    codes = rng.integers(0, VOCAB, (4, LENGTH, BOOKS))
    delayed = np.full_like(codes, VOCAB)  # the padding token, ignored by the loss
    for k in range(BOOKS):
        delayed[:, k:, k] = codes[:, : LENGTH - k, k]
    return model(labels=torch.from_numpy(delayed)).loss


if __name__ == "__main__":
    run(build, loss_of)
