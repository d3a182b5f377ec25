"""Chameleon's VQ-GAN (Hugging Face transformers, tiny configuration): an encoder of residual blocks with
group norm and SiLU, stride-2 downsampling after asymmetric zero padding, single-head convolutional
attention at the lowest resolution; a codebook lookup by squared distances (``z^2 + e^2 - 2 e.z``,
``einsum``), ``argmin`` and ``embedding``, the commitment loss, and the straight-through estimator
(``z + (e - z).detach()``) carrying the gradient past the lookup."""

import numpy as np
import torch
from common import images, run
from transformers import ChameleonVQVAE, ChameleonVQVAEConfig


def build() -> ChameleonVQVAE:
    config = ChameleonVQVAEConfig(
        embed_dim=8, num_embeddings=32, latent_channels=8, resolution=32, base_channels=32,
        channel_multiplier=[1, 2], num_res_blocks=1, attn_resolutions=[16],
    )  # fmt: skip
    return ChameleonVQVAE(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The codebook's commitment loss plus the quantised latents against a random target (4 random 32 x 32
    images)."""
    out = model.encode(images(rng))
    quantized = out.quantized_last_hidden_state
    target = torch.from_numpy(rng.standard_normal(tuple(quantized.shape)).astype(np.float32))
    return out.embedding_loss + ((quantized - target) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
