"""ViT (Hugging Face transformers, tiny configuration): a convolutional patch embedding, attention, GELU."""

import torch
from common import images, run
from transformers import ViTConfig, ViTForImageClassification


def build() -> ViTForImageClassification:
    config = ViTConfig(
        image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=128, num_labels=10,
    )  # fmt: skip
    return ViTForImageClassification(config)


def loss_of(model, rng):
    pixels = images(rng)
    labels = torch.from_numpy(rng.integers(0, 10, pixels.shape[0]))
    return model(pixel_values=pixels, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
