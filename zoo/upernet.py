"""UperNet (Hugging Face transformers, tiny configuration) over a ConvNeXt backbone: a pyramid pooling
module (adaptive average pooling to 1, 2, 3 and 6), bilinear upsampling, a feature pyramid."""

import numpy as np
import torch
from common import images, run
from transformers import ConvNextConfig, UperNetConfig, UperNetForSemanticSegmentation


def build() -> UperNetForSemanticSegmentation:
    backbone = ConvNextConfig(
        hidden_sizes=[8, 16, 24, 32], depths=[1, 1, 1, 1], out_features=["stage1", "stage2", "stage3", "stage4"]
    )
    config = UperNetConfig(
        backbone_config=backbone, hidden_size=16, pool_scales=[1, 2, 3, 6], auxiliary_in_channels=24,
        auxiliary_channels=8, use_auxiliary_head=False, num_labels=4,
    )  # fmt: skip
    return UperNetForSemanticSegmentation(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: 2 random 64 x 64 images, a random label per pixel."""
    pixels = images(rng, batch=2, size=64)
    return model(pixel_values=pixels, labels=torch.from_numpy(rng.integers(0, 4, (2, 64, 64)))).loss


if __name__ == "__main__":
    run(build, loss_of)
