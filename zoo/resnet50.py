"""ResNet-50 at its released size (Hugging Face transformers' default configuration, 25M parameters):
classification of batches of 2 images of 224 x 224 into 1,000 classes."""

from common import image_classification_loss, run
from transformers import ResNetConfig, ResNetForImageClassification


def build() -> ResNetForImageClassification:
    return ResNetForImageClassification(ResNetConfig(num_labels=1000))


if __name__ == "__main__":
    run(build, image_classification_loss(1000, batch=2, size=224))
