"""CLAP audio (Hugging Face transformers, tiny configuration): an HTSAT-like Swin transformer over mel
spectrograms: the spectrogram stretched bicubically in time to the model's width and folded into a
square image, an attentional feature fusion (AFF, two-dimensional) of the global and local mel views with
batch norm and a sigmoid gate, shifted-window attention with relative position bias, patch merging, and a
token-semantic head whose time maps are pooled; the projected embedding regressed on random targets."""

import numpy as np
import torch
from common import run
from transformers import ClapAudioConfig, ClapAudioModelWithProjection

FRAMES, MELS = 100, 8


def build() -> ClapAudioModelWithProjection:
    config = ClapAudioConfig(
        spec_size=32, num_mel_bins=MELS, patch_size=4, patch_stride=[4, 4], window_size=4, depths=[1, 1],
        num_attention_heads=[2, 4], patch_embeds_hidden_size=16, hidden_size=32, projection_dim=16,
        num_classes=10, enable_fusion=True, fusion_type="aff_2d",
    )  # fmt: skip
    return ClapAudioModelWithProjection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Squared error of the audio embeddings (batch 3, four mel views each, the first two longer) against
    random targets."""
    features = torch.from_numpy(rng.standard_normal((3, 4, FRAMES, MELS)).astype(np.float32))
    longer = torch.tensor([[True], [True], [False]])
    embeds = model(input_features=features, is_longer=longer).audio_embeds
    target = torch.from_numpy(rng.standard_normal(tuple(embeds.shape)).astype(np.float32))
    return ((embeds - target) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
