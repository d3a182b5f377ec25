"""X-Codec (Hugging Face transformers, tiny configuration): a neural audio codec whose codes carry semantics.
A HuBERT run without gradients (in training mode, as model.train() leaves it: its dropout and layer drop act;
SpecAugment's masks off) gives the mean of all its hidden states (stacked) as semantic features, encoded by
residual 1-D convolution blocks; a DAC encoder of the waveform gives acoustic features of as many frames; both
are concatenated, projected and quantized by a residual vector quantizer of 2 codebooks (buffers the library
leaves zero, filled from NumPy as a checkpoint's; negated distances by a matmul, max, embedding, each residual
subtracted); the codes are decoded by the quantizer's embeddings, a linear projection and DAC's decoder, whose
transposed convolution of stride 5 takes output_padding 1 and whose tanh is removed, the waveform trimmed to
the input's length. Trained on the L1 and mean squared error of the reconstruction: only the decoder side is
reached by gradients (the codes are integers)."""

import numpy as np
import torch
from common import run
from transformers import XcodecConfig, XcodecModel

SAMPLES = 200


def build() -> XcodecModel:
    acoustic = {
        "encoder_hidden_size": 4, "downsampling_ratios": [5, 2], "decoder_hidden_size": 16,
        "upsampling_ratios": [5, 2], "hidden_size": 16,
    }  # fmt: skip
    semantic = {
        "model_type": "hubert", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 32, "conv_dim": [8, 8], "conv_stride": [5, 2], "conv_kernel": [10, 3],
        "num_conv_pos_embeddings": 8, "num_conv_pos_embedding_groups": 2, "mask_time_prob": 0.0,
    }  # fmt: skip
    config = XcodecConfig(
        acoustic_model_config=acoustic, semantic_model_config=semantic, sample_rate=1000,
        target_bandwidths=[0.4, 0.8], codebook_size=16,
    )  # fmt: skip
    model = XcodecModel(config)
    rng = np.random.default_rng(2)
    with torch.no_grad():  # the codebooks are buffers the library leaves zero: a checkpoint's, from NumPy
        for layer in model.quantizer.quantizers:
            embed = layer.codebook.embed
            embed.copy_(torch.from_numpy(rng.standard_normal(tuple(embed.shape)).astype(np.float32) * 0.5))
    return model


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random mono waveforms of 200 samples: L1 plus mean squared error of their reconstruction."""
    audio = torch.from_numpy(rng.standard_normal((2, 1, SAMPLES)).astype(np.float32) * 0.5)
    rebuilt = model(input_values=audio).audio_values
    return torch.nn.functional.l1_loss(rebuilt, audio) + torch.nn.functional.mse_loss(rebuilt, audio)


if __name__ == "__main__":
    run(build, loss_of)
