"""ResNet-50 at its released size, channels-last (the model and its images in NHWC memory, as PyTorch's
CPU performance guide advises): classification of batches of 2 images of 224 x 224 into 1,000 classes."""

import torch
from common import image_classification_loss, run
from transformers import ResNetConfig, ResNetForImageClassification


def build() -> ResNetForImageClassification:
    return ResNetForImageClassification(ResNetConfig(num_labels=1000)).to(memory_format=torch.channels_last)


if __name__ == "__main__":
    run(build, image_classification_loss(1000, batch=2, size=224, channels_last=True))
