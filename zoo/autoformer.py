"""Autoformer (Hugging Face transformers, tiny configuration): series decomposition by a moving average
(replicate padding, average pooling), autocorrelation attention through torch.fft's rfft and irfft with
the top delays picked by topk and gathered, a Student-t output distribution."""

from common import run
from informer import CONTEXT, HORIZON, LAGS, loss_of
from transformers import AutoformerConfig, AutoformerForPrediction


def build() -> AutoformerForPrediction:
    config = AutoformerConfig(
        prediction_length=HORIZON, context_length=CONTEXT, lags_sequence=LAGS, num_time_features=1, d_model=16,
        encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=32, decoder_ffn_dim=32, moving_average=5, autocorrelation_factor=2, label_length=8,
    )  # fmt: skip
    return AutoformerForPrediction(config)


if __name__ == "__main__":
    run(build, loss_of)
