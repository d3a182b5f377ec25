"""PP-LCNet (Hugging Face transformers, tiny configuration): depthwise-separable blocks with hard-swish,
squeeze-and-excitation by adaptive average pooling and a hard sigmoid, a 1 x 1 expansion before the
classifier. The library's classifier returns its logits only: the loss is their cross-entropy."""

import torch
from common import images, run
from transformers import PPLCNetConfig, PPLCNetForImageClassification

LABELS = 10


def build() -> PPLCNetForImageClassification:
    config = PPLCNetConfig(scale=0.25, num_labels=LABELS)
    return PPLCNetForImageClassification(config)


def loss_of(model, rng):
    pixels = images(rng)
    targets = torch.from_numpy(rng.integers(0, LABELS, pixels.shape[0]))
    logits = model(pixel_values=pixels).last_hidden_state  # (batch, labels)
    return torch.nn.functional.cross_entropy(logits, targets)


if __name__ == "__main__":
    run(build, loss_of)
