"""Mimi (Hugging Face transformers, tiny configuration): causal 1-D convolutions with constant padding,
strided and transposed convolutions (a grouped, depthwise one between frame rates), rotary-position
transformers with layer scale, a split residual vector quantiser; trained on its reconstruction."""

import numpy as np
import torch
from common import run
from transformers import MimiConfig, MimiModel


def build() -> MimiModel:
    config = MimiConfig(
        sampling_rate=800, frame_rate=50, audio_channels=1, hidden_size=16, num_filters=4, upsampling_ratios=[4, 2],
        codebook_size=32, codebook_dim=8, num_quantizers=2, vector_quantization_hidden_dimension=8,
        num_semantic_quantizers=1, upsample_groups=16, num_hidden_layers=1, intermediate_size=32,
        num_attention_heads=2, num_key_value_heads=2, head_dim=8, sliding_window=16, max_position_embeddings=64,
    )  # fmt: skip
    return MimiModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The mean squared reconstruction error of one batch of random audio (2 x 1 x 256 samples)."""
    audio = torch.from_numpy(rng.standard_normal((2, 1, 256)).astype(np.float32))
    out = model(input_values=audio).audio_values
    return torch.nn.functional.mse_loss(out[..., : audio.shape[-1]], audio)


if __name__ == "__main__":
    run(build, loss_of)
