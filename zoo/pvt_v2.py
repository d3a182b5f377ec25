"""PVTv2 (Hugging Face transformers, tiny configuration): overlapping patch embeddings, attention whose
keys and values are spatially reduced by a strided convolution, and a depthwise convolution in the
feed-forward."""

from common import image_classification_loss, run
from transformers import PvtV2Config, PvtV2ForImageClassification


def build() -> PvtV2ForImageClassification:
    config = PvtV2Config(
        image_size=32, num_channels=3, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
        patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2], num_labels=5,
    )  # fmt: skip
    return PvtV2ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(5))
