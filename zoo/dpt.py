"""DPT (Hugging Face transformers, tiny configuration): a ViT backbone reassembled by transposed convolutions,
bilinear upsampling with aligned corners, a semantic segmentation head
whose logits are upsampled bilinearly (corners not aligned) to the labels."""

import numpy as np
import torch
from common import images, run
from transformers import DPTConfig, DPTForSemanticSegmentation


def build() -> DPTForSemanticSegmentation:
    config = DPTConfig(
        image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4, num_attention_heads=2, intermediate_size=64,
        backbone_out_indices=[0, 1, 2, 3], neck_hidden_sizes=[8, 16, 16, 16], fusion_hidden_size=16,
        reassemble_factors=[4, 2, 1, 0.5], head_in_index=-1, num_labels=4, use_auxiliary_head=False,
    )  # fmt: skip
    return DPTForSemanticSegmentation(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: 4 random images, a random label per pixel."""
    pixels = images(rng)
    labels = torch.from_numpy(rng.integers(0, 4, (4, 32, 32)))
    logits = model(pixel_values=pixels).logits
    upsampled = torch.nn.functional.interpolate(logits, size=(32, 32), mode="bilinear", align_corners=False)
    return torch.nn.functional.cross_entropy(upsampled, labels)


if __name__ == "__main__":
    run(build, loss_of)
