"""FocalNet (Hugging Face transformers, tiny configuration): focal modulation in place of attention
(depthwise convolutions of growing kernels, gated and aggregated, a global average context)."""

from common import image_classification_loss, run
from transformers import FocalNetConfig, FocalNetForImageClassification


def build() -> FocalNetForImageClassification:
    config = FocalNetConfig(
        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], focal_levels=[2, 2], focal_windows=[3, 3],
        hidden_sizes=[16, 32], num_labels=5,
    )  # fmt: skip
    return FocalNetForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(5))
