"""Hiera (Hugging Face transformers, tiny configuration): tokens unrolled into mask units, attention
within them, queries pooled by max pooling between stages."""

from common import image_classification_loss, run
from transformers import HieraConfig, HieraForImageClassification


def build() -> HieraForImageClassification:
    config = HieraConfig(
        image_size=[32, 32], patch_size=[3, 3], patch_stride=[2, 2], patch_padding=[1, 1], embed_dim=16,
        depths=[1, 1], num_heads=[1, 2], query_stride=[2, 2], masked_unit_size=[4, 4], num_query_pool=1,
        num_labels=5,
    )  # fmt: skip
    return HieraForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(5))
