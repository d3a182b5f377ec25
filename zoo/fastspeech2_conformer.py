"""FastSpeech2Conformer (Hugging Face transformers, tiny configuration): a Conformer encoder and decoder
(macaron feed-forwards, relative positional self-attention, GLU and depthwise convolution modules with
batch norm and Swish), duration, pitch and energy predictors of 1-D convolutions with LayerNorm over
channels, a length regulator that repeats each token's state by its duration (repeat_interleave), and a
convolutional postnet with tanh; the loss the model's own: L1 of the spectrograms, MSE of log durations,
pitch and energy, masked."""

import numpy as np
import torch
from common import run, tokens
from transformers import FastSpeech2ConformerConfig, FastSpeech2ConformerModel

VOCAB, MELS, LENGTH = 20, 8, 6


def build() -> FastSpeech2ConformerModel:
    config = FastSpeech2ConformerConfig(
        hidden_size=16, vocab_size=VOCAB, num_mel_bins=MELS, encoder_layers=1, decoder_layers=1,
        encoder_linear_units=32, decoder_linear_units=32, encoder_kernel_size=3, decoder_kernel_size=5,
        speech_decoder_postnet_layers=2, speech_decoder_postnet_units=16, duration_predictor_channels=16,
        pitch_predictor_layers=2, pitch_predictor_channels=16, energy_predictor_channels=16,
    )  # fmt: skip
    return FastSpeech2ConformerModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Random tokens (batch 3, the last ending in 2 pads), durations of 1 to 3 frames, random spectrograms
    padded with -100 past each utterance's frames, random pitch and energy."""
    ids = tokens(rng, VOCAB, batch=3, length=LENGTH)
    mask = np.ones((3, LENGTH), np.int64)
    mask[2, -2:] = 0
    durations = rng.integers(1, 4, (3, LENGTH)) * mask
    frames = durations.sum(1)
    spectrogram = rng.standard_normal((3, int(frames.max()), MELS)).astype(np.float32)
    for row, n in enumerate(frames):
        spectrogram[row, n:] = -100.0
    return model(
        input_ids=ids,
        attention_mask=torch.from_numpy(mask),
        spectrogram_labels=torch.from_numpy(spectrogram),
        duration_labels=torch.from_numpy(durations),
        pitch_labels=torch.from_numpy(rng.standard_normal((3, LENGTH, 1)).astype(np.float32)),
        energy_labels=torch.from_numpy(rng.standard_normal((3, LENGTH, 1)).astype(np.float32)),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
