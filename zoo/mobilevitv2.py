"""MobileViTV2 (Hugging Face transformers, tiny configuration): separable self-attention (one context score
per patch, softmax over the patches, a context vector summed from the keys and broadcast over ReLU'd
values: linear in the number of patches), group norm with one group as the transformer's layer norm, and
inverted residual convolutions with SiLU and batch norm, widths scaled by a multiplier."""

import numpy as np
import torch
from common import images, run
from transformers import MobileViTV2Config, MobileViTV2ForImageClassification


def build() -> MobileViTV2ForImageClassification:
    config = MobileViTV2Config(
        image_size=64, patch_size=2, width_multiplier=0.25, n_attn_blocks=[1, 1, 1], base_attn_unit_dims=[32, 48, 64],
        num_labels=10,
    )  # fmt: skip
    return MobileViTV2ForImageClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The classifier's loss on 4 random 64 x 64 images (the fifth stage's patches need 2 x 2 pixels) and labels."""
    pixels = images(rng, size=64)
    return model(pixel_values=pixels, labels=torch.from_numpy(rng.integers(0, 10, pixels.shape[0]))).loss


if __name__ == "__main__":
    run(build, loss_of)
