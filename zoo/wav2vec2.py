"""Wav2Vec2 (Hugging Face transformers, tiny configuration): a 1-D convolutional feature encoder with group norm,
a grouped positional convolution, CTC loss."""

import numpy as np
import torch
from common import run
from transformers import Wav2Vec2Config, Wav2Vec2ForCTC

VOCAB = 16


def build() -> Wav2Vec2ForCTC:
    config = Wav2Vec2Config(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=4, mask_time_prob=0.0, ctc_loss_reduction="mean", pad_token_id=0,
    )  # fmt: skip
    return Wav2Vec2ForCTC(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The CTC loss of one batch: random audio (4 x 400 samples), random labels of 6 tokens."""
    audio = torch.from_numpy(rng.standard_normal((4, 400)).astype(np.float32))
    labels = torch.from_numpy(rng.integers(1, VOCAB, (4, 6)))
    return model(input_values=audio, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
