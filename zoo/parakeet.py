"""Parakeet CTC (Hugging Face transformers, tiny configuration): a FastConformer encoder, mel
features subsampled 4x by strided 2-d convolutions (a depthwise-separable stack), relative positional
multi-head attention with learned biases u and v and the relative shift, conformer convolution modules
(pointwise, GLU, depthwise, batch norm, SiLU) between half-step feed-forwards, variable-length inputs
masked, and the connectionist temporal classification loss (`ctc_loss` over log-softmax, targets of
variable length padded with -100, mean reduction by target length, infinite losses zeroed)."""

import numpy as np
import torch
from common import run
from transformers import ParakeetCTCConfig, ParakeetEncoderConfig, ParakeetForCTC

VOCAB, MELS, FRAMES, BATCH = 16, 16, 48, 4


def build() -> ParakeetForCTC:
    encoder = ParakeetEncoderConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, conv_kernel_size=5,
        subsampling_factor=4, subsampling_conv_channels=8, num_mel_bins=MELS, max_position_embeddings=64,
        dropout=0.0, layerdrop=0.0, activation_dropout=0.0, attention_dropout=0.0,
    )  # fmt: skip
    config = ParakeetCTCConfig(vocab_size=VOCAB, encoder_config=encoder.to_dict(), pad_token_id=VOCAB - 1)
    return ParakeetForCTC(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The CTC loss of random features (the last two of the batch shorter, their tails masked) against
    random targets of 2 to 5 tokens (padded with -100, never the blank)."""
    features = rng.standard_normal((BATCH, FRAMES, MELS)).astype(np.float32)
    lengths = np.array([FRAMES, FRAMES, FRAMES - 8, FRAMES - 16])
    mask = (np.arange(FRAMES)[None, :] < lengths[:, None]).astype(np.int64)
    labels = rng.integers(0, VOCAB - 1, (BATCH, 5))
    labels[np.arange(5)[None, :] >= rng.integers(2, 6, BATCH)[:, None]] = -100
    return model(
        input_features=torch.from_numpy(features),
        attention_mask=torch.from_numpy(mask),
        labels=torch.from_numpy(labels),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
