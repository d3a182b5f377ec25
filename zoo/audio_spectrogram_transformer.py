"""Audio Spectrogram Transformer (Hugging Face transformers, tiny configuration): a ViT over a
spectrogram whose 16 x 16 patches overlap (a convolution of stride 6 over the transposed frequency and
time axes), a class and a distillation token, the two pooled and classified."""

import numpy as np
import torch
from common import run
from transformers import ASTConfig, ASTForAudioClassification

LABELS, FRAMES, BINS = 5, 40, 24


def build() -> ASTForAudioClassification:
    config = ASTConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, patch_size=16,
        frequency_stride=6, time_stride=6, max_length=FRAMES, num_mel_bins=BINS, num_labels=LABELS,
    )  # fmt: skip
    return ASTForAudioClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Cross entropy of 4 random spectrograms (frames x mel bins) against random labels."""
    features = torch.from_numpy(rng.standard_normal((4, FRAMES, BINS)).astype(np.float32))
    return model(input_values=features, labels=torch.from_numpy(rng.integers(0, LABELS, 4))).loss


if __name__ == "__main__":
    run(build, loss_of)
