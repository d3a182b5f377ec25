"""ViT (Hugging Face transformers, tiny configuration): a convolutional patch embedding, attention, GELU."""

from common import image_classification_loss, run
from transformers import ViTConfig, ViTForImageClassification


def build() -> ViTForImageClassification:
    config = ViTConfig(
        image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=128, num_labels=10,
    )  # fmt: skip
    return ViTForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
