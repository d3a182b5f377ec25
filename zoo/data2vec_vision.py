"""Data2Vec-Vision (Hugging Face transformers, tiny configuration): a BEiT-style encoder with a relative
position bias per layer (a learned table gathered by a fixed index), layer scale, mean pooling."""

from common import image_classification_loss, run
from transformers import Data2VecVisionConfig, Data2VecVisionForImageClassification


def build() -> Data2VecVisionForImageClassification:
    config = Data2VecVisionConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=32,
        patch_size=8, use_relative_position_bias=True, num_labels=10,
    )  # fmt: skip
    return Data2VecVisionForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
