"""UnivNet (Hugging Face transformers, tiny configuration): a vocoder whose kernel predictor makes, from a
spectrogram, the weights of location-variable convolutions (unfold, einsum), with leaky ReLU, transposed
and dilated 1-D convolutions under weight norm, tanh and sigmoid gates; trained on its waveform."""

import numpy as np
import torch
from common import run
from transformers import UnivNetConfig, UnivNetModel

MELS, FRAMES = 8, 4


def build() -> UnivNetModel:
    config = UnivNetConfig(
        model_in_channels=8, model_hidden_channels=4, num_mel_bins=MELS, resblock_kernel_sizes=[3, 3],
        resblock_stride_sizes=[2, 2], resblock_dilation_sizes=[[1, 3], [1, 3]], kernel_predictor_num_blocks=1,
        kernel_predictor_hidden_channels=8,
    )  # fmt: skip
    return UnivNetModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The mean squared error of the waveform made from random spectrograms and noise (batch 2) to a random one."""
    mel = torch.from_numpy(rng.standard_normal((2, FRAMES, MELS)).astype(np.float32))
    noise = torch.from_numpy(rng.standard_normal((2, FRAMES, 8)).astype(np.float32))
    wave = model(input_features=mel, noise_sequence=noise).waveforms
    target = torch.from_numpy(rng.standard_normal(tuple(wave.shape)).astype(np.float32))
    return torch.nn.functional.mse_loss(wave, target)


if __name__ == "__main__":
    run(build, loss_of)
