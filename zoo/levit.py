"""LeViT (Hugging Face transformers, tiny configuration): a convolutional patch stem, attention with
batch norm in place of LayerNorm, Hardswish."""

from common import image_classification_loss, run
from transformers import LevitConfig, LevitForImageClassification


def build() -> LevitForImageClassification:
    config = LevitConfig(
        image_size=32, hidden_sizes=[32, 48, 64], num_attention_heads=[2, 3, 4], depths=[1, 1, 1], key_dim=[8, 8, 8],
        num_labels=10,
    )  # fmt: skip
    return LevitForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
