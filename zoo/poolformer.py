"""PoolFormer (Hugging Face transformers, tiny configuration): average pooling as the token mixer, group norm
with one group, layer scale."""

from common import image_classification_loss, run
from transformers import PoolFormerConfig, PoolFormerForImageClassification


def build() -> PoolFormerForImageClassification:
    config = PoolFormerConfig(
        num_channels=3, patch_size=7, stride=4, pool_size=3, hidden_sizes=[16, 32], depths=[1, 1], num_encoder_blocks=2,
        patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1], num_labels=10,
    )  # fmt: skip
    return PoolFormerForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
