"""EnCodec (Hugging Face transformers, tiny configuration): 1-D convolutions with weight norm, transposed
convolutions, an LSTM, ELU, a residual vector quantiser; trained on its reconstruction."""

import numpy as np
import torch
from common import run
from transformers import EncodecConfig, EncodecModel


def build() -> EncodecModel:
    config = EncodecConfig(
        target_bandwidths=[10.0], sampling_rate=8000, audio_channels=1, hidden_size=16, num_filters=4,
        num_residual_layers=1, upsampling_ratios=[4, 2], codebook_size=32, codebook_dim=16, num_lstm_layers=1,
    )  # fmt: skip
    return EncodecModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The mean squared reconstruction error of one batch of random audio (2 x 1 x 256 samples)."""
    audio = torch.from_numpy(rng.standard_normal((2, 1, 256)).astype(np.float32))
    out = model(input_values=audio, bandwidth=10.0).audio_values
    return torch.nn.functional.mse_loss(out[..., : audio.shape[-1]], audio)


if __name__ == "__main__":
    run(build, loss_of)
