"""ResNet (Hugging Face transformers, tiny configuration): convolutions, batch norm, pooling."""

import torch
from common import images, run
from transformers import ResNetConfig, ResNetForImageClassification


def build() -> ResNetForImageClassification:
    config = ResNetConfig(embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], num_labels=10)
    return ResNetForImageClassification(config)


def loss_of(model, rng):
    pixels = images(rng)
    labels = torch.from_numpy(rng.integers(0, 10, pixels.shape[0]))
    return model(pixel_values=pixels, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
