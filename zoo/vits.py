"""VITS (Hugging Face transformers, tiny configuration): a text-to-speech synthesiser run end to end in
training mode on its own output (the library trains no loss): a text encoder with windowed relative
attention, the stochastic duration predictor run in reverse (rational-quadratic spline flows whose bins
are found by counting the knots at or below each input, ``ge`` and ``sum``; dilated depth-separable
convolutions), durations rounded up with ``ceil`` and turned into an alignment by a cumulative sum, a
prior sampled with ``randn_like``, a WaveNet-style flow of weight-normed convolutions with gated
tanh-sigmoid units run in reverse, a HiFi-GAN decoder of transposed convolutions and leaky ReLU; the
loss is the mean square of the waveform."""

import numpy as np
import torch
from common import run, tokens
from transformers import VitsConfig, VitsModel

VOCAB = 38


def build() -> VitsModel:
    config = VitsConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, window_size=2, ffn_dim=32,
        flow_size=8, spectrogram_bins=17, upsample_initial_channel=16, upsample_rates=(4, 2),
        upsample_kernel_sizes=(8, 4), resblock_kernel_sizes=(3,), resblock_dilation_sizes=((1, 3),),
        depth_separable_channels=2, depth_separable_num_layers=2, duration_predictor_flow_bins=4,
        duration_predictor_filter_channels=16, duration_predictor_num_flows=2, prior_encoder_num_flows=2,
        prior_encoder_num_wavenet_layers=1, posterior_encoder_num_wavenet_layers=1, layerdrop=0.0,
        hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, duration_predictor_dropout=0.0,
    )  # fmt: skip
    return VitsModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The mean square of the waveform synthesised from a batch of random tokens (batch 2, length 8)."""
    return model(input_ids=tokens(rng, VOCAB, batch=2, length=8)).waveform.pow(2).mean()


if __name__ == "__main__":
    run(build, loss_of)
