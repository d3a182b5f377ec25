"""Swin Transformer (Hugging Face transformers, tiny configuration): shifted windows, relative position bias."""

from common import image_classification_loss, run
from transformers import SwinConfig, SwinForImageClassification


def build() -> SwinForImageClassification:
    config = SwinConfig(
        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4, num_labels=10
    )  # fmt: skip
    return SwinForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
