"""Swin Transformer V2 (Hugging Face transformers, tiny configuration): scaled cosine attention in
shifted windows, a learned temperature, and a continuous relative position bias made by a small MLP
from log-spaced coordinates."""

from common import image_classification_loss, run
from transformers import Swinv2Config, Swinv2ForImageClassification


def build() -> Swinv2ForImageClassification:
    config = Swinv2Config(
        image_size=32, patch_size=4, embed_dim=16, depths=[2, 1], num_heads=[2, 2], window_size=4, mlp_ratio=2.0,
        num_labels=5,
    )  # fmt: skip
    return Swinv2ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(5))
