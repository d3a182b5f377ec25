"""PVT (Hugging Face transformers, tiny configuration): a pyramid of overlapping-free patch embeddings,
attention whose keys and values come from a strided convolution of the sequence (spatial reduction)
and its layer norm, position embeddings resized bilinearly at each stage."""

from common import image_classification_loss, run
from transformers import PvtConfig, PvtForImageClassification


def build() -> PvtForImageClassification:
    config = PvtConfig(
        image_size=32, depths=[1, 1, 1, 1], sequence_reduction_ratios=[2, 1, 1, 1], hidden_sizes=[8, 16, 24, 32],
        patch_sizes=[4, 2, 2, 2], strides=[4, 2, 2, 2], num_attention_heads=[1, 1, 2, 2], mlp_ratios=[2, 2, 2, 2],
        num_labels=10,
    )  # fmt: skip
    return PvtForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
