"""NeuCodec (Hugging Face transformers, tiny configuration): a neural audio codec trained on its
reconstruction: a convolutional acoustic encoder of Snake-beta activations, each applied between a
Kaiser-windowed sinc upsampling (a transposed convolution by the fixed filter) and downsampling,
beside a Wav2Vec2-BERT semantic encoder run without gradients; finite scalar quantization (``round``
with a straight-through gradient); a transformer decoder whose ISTFT head turns magnitude (``exp``,
clamped) and phase into a complex spectrum (``polar``), back to frames by ``irfft``, overlap-added by
``fold`` and divided by the window's envelope."""

import numpy as np
import torch
from common import run
from transformers import NeuCodecConfig, NeuCodecModel

SAMPLES, FRAMES = 320, 16  # 4 codes of 80 samples; the semantic encoder's feature frames


def build() -> NeuCodecModel:
    semantic = {"model_type": "wav2vec2-bert", "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                "intermediate_size": 64, "feature_projection_input_dim": 160, "mask_time_prob": 0.0,
                "layerdrop": 0.0, "conv_depthwise_kernel_size": 7}  # fmt: skip
    config = NeuCodecConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
        head_dim=16, encoder_hidden_size=8, downsampling_ratios=[2, 2, 4, 5], semantic_model_config=semantic,
        quantization_dim=64, quantization_levels=[4, 4, 4], activation_dropout=0.0,
    )  # fmt: skip
    return NeuCodecModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random waveforms of 320 samples and 2 random feature sequences (16 frames of 160); the mean L1
    distance of the reconstruction (at the output rate) to a random waveform of its length."""
    audio = torch.from_numpy(rng.standard_normal((2, 1, SAMPLES)).astype(np.float32))
    features = torch.from_numpy(rng.standard_normal((2, FRAMES, 160)).astype(np.float32))
    out = model(input_values=audio, input_features=features).audio_values
    target = torch.from_numpy(rng.standard_normal(tuple(out.shape)).astype(np.float32))
    return (out - target).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
