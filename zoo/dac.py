"""DAC (Hugging Face transformers, tiny configuration): the Snake activation (x + sin(alpha x)^2 / alpha,
torch.sin and reciprocal), dilated weight-normalised 1-D convolutions, transposed convolutions, a residual
vector quantiser with L2-normalised codes; trained on its reconstruction and its quantiser's losses."""

import numpy as np
import torch
from common import run
from transformers import DacConfig, DacModel


def build() -> DacModel:
    config = DacConfig(
        encoder_hidden_size=4, downsampling_ratios=[2, 2], decoder_hidden_size=16, n_codebooks=2,
        codebook_size=32, codebook_dim=4, sampling_rate=8000,
    )  # fmt: skip
    return DacModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The quantiser's losses plus the mean squared reconstruction error of random audio (2 x 1 x 128)."""
    audio = torch.from_numpy(rng.standard_normal((2, 1, 128)).astype(np.float32))
    out = model(input_values=audio)
    return out.loss.mean() + torch.nn.functional.mse_loss(out.audio_values, audio)


if __name__ == "__main__":
    run(build, loss_of)
