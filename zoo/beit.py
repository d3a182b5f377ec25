"""BEiT (Hugging Face transformers, tiny configuration): a relative position bias table gathered per head,
layer scale, a mean-pooled classifier."""

from common import image_classification_loss, run
from transformers import BeitConfig, BeitForImageClassification


def build() -> BeitForImageClassification:
    config = BeitConfig(
        image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, use_relative_position_bias=True, use_mean_pooling=True, num_labels=10,
    )  # fmt: skip
    return BeitForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
