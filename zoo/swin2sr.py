"""Swin2SR (Hugging Face transformers, tiny configuration): image super-resolution with shifted-window
attention (scaled cosine attention, log-spaced continuous position bias), pixel shuffle upsampling."""

import numpy as np
import torch
from common import images, run
from transformers import Swin2SRConfig, Swin2SRForImageSuperResolution


def build() -> Swin2SRForImageSuperResolution:
    config = Swin2SRConfig(
        image_size=16, patch_size=1, embed_dim=16, depths=[1], num_heads=[2], window_size=4, upscale=2,
        upsampler="pixelshuffle", img_range=1.0,
    )  # fmt: skip
    return Swin2SRForImageSuperResolution(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The L1 loss of one batch: 2 random 16 x 16 images against random 32 x 32 targets."""
    pixels = images(rng, batch=2, size=16)
    target = torch.from_numpy(rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
    return torch.nn.functional.l1_loss(model(pixel_values=pixels).reconstruction, target)


if __name__ == "__main__":
    run(build, loss_of)
