"""Time Series Transformer (Hugging Face transformers, tiny configuration): a vanilla encoder-decoder
over lagged values under a negative binomial likelihood (the zoo's other forecasters use Student-t):
counts scaled by their standard deviation (`TimeSeriesStdScaler`: a masked mean and variance, a square
root), the count parameter through squareplus, `(x + sqrt(x * x + 4)) / 2`, the logits shifted by the
log of the scale, and torch.distributions' `NegativeBinomial.log_prob`, three `lgamma` (whose gradients
are `digamma`) and two log-sigmoids; a static categorical feature embedded and a static real feature."""

import numpy as np
import torch
from common import run
from transformers import TimeSeriesTransformerConfig, TimeSeriesTransformerForPrediction

CONTEXT, HORIZON, LAGS = 16, 4, [1, 2, 3]


def build() -> TimeSeriesTransformerForPrediction:
    config = TimeSeriesTransformerConfig(
        prediction_length=HORIZON, context_length=CONTEXT, lags_sequence=LAGS, distribution_output="negative_binomial",
        scaling="std", num_time_features=1, num_static_categorical_features=1, cardinality=[3],
        embedding_dimension=[2], num_static_real_features=1, d_model=16, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
    )  # fmt: skip
    return TimeSeriesTransformerForPrediction(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The negative log-likelihood of random future counts given random past counts (Poisson, batch 4, a
    mean per series from 2 to 20, the past's last 3 values unobserved in one series), time features a ramp."""
    batch, past_len = 4, CONTEXT + max(LAGS)
    rate = rng.uniform(2.0, 20.0, (batch, 1))
    ramp = np.linspace(0.0, 1.0, past_len + HORIZON, dtype=np.float32)[None, :, None].repeat(batch, 0)
    observed = np.ones((batch, past_len), np.float32)
    observed[1, -3:] = 0.0
    return model(
        past_values=torch.from_numpy(rng.poisson(rate, (batch, past_len)).astype(np.float32)),
        past_time_features=torch.from_numpy(ramp[:, :past_len]),
        past_observed_mask=torch.from_numpy(observed),
        static_categorical_features=torch.from_numpy(rng.integers(0, 3, (batch, 1))),
        static_real_features=torch.from_numpy(rng.standard_normal((batch, 1)).astype(np.float32)),
        future_values=torch.from_numpy(rng.poisson(rate, (batch, HORIZON)).astype(np.float32)),
        future_time_features=torch.from_numpy(ramp[:, past_len:]),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
