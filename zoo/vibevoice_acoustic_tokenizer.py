"""VibeVoice's acoustic tokenizer (Hugging Face transformers, tiny configuration): a sigma-VAE over raw audio,
causal 1-D convolutions (left zero padding of kernel - stride samples, strided downsampling), ConvNeXt-style
blocks of a depthwise causal convolution between per-time-step RMS norms and a GELU feed-forward, each
branch scaled per channel; the latents perturbed by Gaussian noise whose scale is itself drawn per clip
(``randn`` of the batch, ``randn_like`` of the latents), then decoded by causal transposed convolutions
trimmed on the right. Trained on the reconstruction of the waveform and the latents' mean square."""

import numpy as np
import torch
from common import run
from transformers import VibeVoiceAcousticTokenizerConfig, VibeVoiceAcousticTokenizerModel

SAMPLES = 640


def build() -> VibeVoiceAcousticTokenizerModel:
    config = VibeVoiceAcousticTokenizerConfig(
        hidden_size=8, kernel_size=5, num_filters=8, downsampling_ratios=[2, 4], depths=[1, 1, 2], ffn_expansion=2
    )
    return VibeVoiceAcousticTokenizerModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """3 random waveforms of 640 samples: the squared error of their reconstruction plus the latents' mean
    square (the sigma-VAE's prior term)."""
    audio = torch.from_numpy(rng.standard_normal((3, 1, SAMPLES)).astype(np.float32))
    out = model(audio)
    return ((out.audio[..., :SAMPLES] - audio) ** 2).mean() + 0.1 * (out.latents**2).mean()


if __name__ == "__main__":
    run(build, loss_of)
