"""ResNet (Hugging Face transformers, tiny configuration): convolutions, batch norm, pooling."""

from common import image_classification_loss, run
from transformers import ResNetConfig, ResNetForImageClassification


def build() -> ResNetForImageClassification:
    config = ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], num_labels=10)
    return ResNetForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
