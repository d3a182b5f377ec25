"""Data2Vec-Audio (Hugging Face transformers, tiny configuration): a 1-D convolutional feature encoder with a
layer norm after every convolution (over the channels, transposed around it), positions by a stack of four
grouped convolutions of an even kernel (each padded, trimmed by one sample, layer-normed without weights and
passed through GELU) instead of one weight-normed convolution; CTC loss."""

import numpy as np
import torch
from common import run
from transformers import Data2VecAudioConfig, Data2VecAudioForCTC

VOCAB = 16


def build() -> Data2VecAudioForCTC:
    config = Data2VecAudioConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=4,
        num_conv_pos_embedding_groups=4, conv_pos_kernel_size=4, mask_time_prob=0.0, layerdrop=0.0,
        ctc_loss_reduction="mean", pad_token_id=0,
    )  # fmt: skip
    return Data2VecAudioForCTC(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The CTC loss of one batch: random audio (4 x 400 samples), random labels of 6 tokens."""
    audio = torch.from_numpy(rng.standard_normal((4, 400)).astype(np.float32))
    labels = torch.from_numpy(rng.integers(1, VOCAB, (4, 6)))
    return model(input_values=audio, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
