"""ViT-MAE (Hugging Face transformers, tiny configuration): random masking of patches (uniform noise, argsort,
gather), an encoder over the kept patches, a decoder reconstructing the masked pixels."""

import numpy as np
import torch
from common import images, run
from transformers import ViTMAEConfig, ViTMAEForPreTraining


def build() -> ViTMAEForPreTraining:
    config = ViTMAEConfig(
        image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, decoder_hidden_size=16, decoder_num_hidden_layers=1, decoder_num_attention_heads=2,
        decoder_intermediate_size=32, mask_ratio=0.5,
    )  # fmt: skip
    return ViTMAEForPreTraining(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The reconstruction loss of one batch of 4 random images."""
    return model(pixel_values=images(rng)).loss


if __name__ == "__main__":
    run(build, loss_of)
