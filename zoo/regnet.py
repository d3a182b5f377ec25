"""RegNet (Hugging Face transformers, tiny configuration): grouped 3x3 convolutions (groups of 8
channels), squeeze-and-excitation, batch norm."""

from common import image_classification_loss, run
from transformers import RegNetConfig, RegNetForImageClassification


def build() -> RegNetForImageClassification:
    config = RegNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8, num_labels=10)
    return RegNetForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
