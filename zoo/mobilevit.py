"""MobileViT (Hugging Face transformers, tiny configuration): inverted residual convolutions with SiLU and batch
norm, unfolded patches through a transformer and folded back."""

from common import image_classification_loss, run
from transformers import MobileViTConfig, MobileViTForImageClassification


def build() -> MobileViTForImageClassification:
    config = MobileViTConfig(
        image_size=32, patch_size=2, hidden_sizes=[16, 24, 32], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64],
        num_attention_heads=2, mlp_ratio=2.0, num_labels=10,
    )  # fmt: skip
    return MobileViTForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
