"""SegFormer (Hugging Face transformers, tiny configuration): overlapping patch convolutions, efficient
self-attention with a strided reduction convolution, a depthwise 3x3 convolution in each Mix-FFN."""

from common import image_classification_loss, run
from transformers import SegformerConfig, SegformerForImageClassification


def build() -> SegformerForImageClassification:
    config = SegformerConfig(
        num_channels=3, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
        patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2], num_labels=10,
    )  # fmt: skip
    return SegformerForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
