"""PatchTSMixer (Hugging Face transformers, tiny configuration): MLP-Mixer blocks across patches,
features and channels with gated attention (a softmax over features), batch norm, a small self-attention
over patches, sinusoidal positions, std scaling; the mean squared error of its forecast."""

from common import run
from patchtst import CHANNELS, CONTEXT, HORIZON, loss_of
from transformers import PatchTSMixerConfig, PatchTSMixerForPrediction


def build() -> PatchTSMixerForPrediction:
    config = PatchTSMixerConfig(
        context_length=CONTEXT, prediction_length=HORIZON, num_input_channels=CHANNELS, patch_length=8,
        patch_stride=4, d_model=16, num_layers=2, mode="mix_channel", gated_attn=True, norm_mlp="BatchNorm",
        self_attn=True, self_attn_heads=2, use_positional_encoding=True, dropout=0.0, head_dropout=0.0,
    )  # fmt: skip
    return PatchTSMixerForPrediction(config)


if __name__ == "__main__":
    run(build, loss_of)
