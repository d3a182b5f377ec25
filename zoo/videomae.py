"""VideoMAE (Hugging Face transformers, tiny configuration): a 3-D convolutional tubelet embedding, fixed
sinusoidal positions, a mean-pooled video classifier."""

import numpy as np
import torch
from common import run
from transformers import VideoMAEConfig, VideoMAEForVideoClassification


def build() -> VideoMAEForVideoClassification:
    config = VideoMAEConfig(
        image_size=16, patch_size=4, num_frames=4, tubelet_size=2, hidden_size=32, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=64, num_labels=5,
    )  # fmt: skip
    return VideoMAEForVideoClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: 2 random clips of 4 frames of 3 x 16 x 16, one of 5 labels each."""
    video = torch.from_numpy(rng.standard_normal((2, 4, 3, 16, 16)).astype(np.float32))
    return model(pixel_values=video, labels=torch.from_numpy(rng.integers(0, 5, 2))).loss


if __name__ == "__main__":
    run(build, loss_of)
