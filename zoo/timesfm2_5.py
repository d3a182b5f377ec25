"""TimesFM 2.5 (Hugging Face transformers, tiny configuration): a decoder-only forecaster over patches,
each series normalised by its global mean and standard deviation (``std``), a residual block in with its
padding mask, rotary attention with per-dimension query scales, the forecast averaged with that of the
negated series (flip invariance: its quantiles reversed by ``flip``), a continuous quantile head whose
spreads are moved onto the median, a loss of ``mse_loss`` and the quantile loss."""

import numpy as np
import torch
from common import run
from transformers import TimesFm2_5Config, TimesFm2_5ModelForPrediction

PATCH, CONTEXT, HORIZON, LENGTHS = 8, 32, 8, (32, 27, 19, 32)


def build() -> TimesFm2_5ModelForPrediction:
    config = TimesFm2_5Config(
        patch_length=PATCH, context_length=CONTEXT, horizon_length=HORIZON, num_hidden_layers=2, hidden_size=32,
        intermediate_size=32, head_dim=16, num_attention_heads=2, num_key_value_heads=2,
        quantiles=[0.1, 0.5, 0.9], decode_index=2, output_quantile_len=16, max_position_embeddings=64,
    )  # fmt: skip
    return TimesFm2_5ModelForPrediction(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: 4 random series of 32, 27, 19 and 32 values, a future of 8 each."""
    past = [torch.from_numpy(rng.standard_normal(n).astype(np.float32)) for n in LENGTHS]
    future = torch.from_numpy(rng.standard_normal((len(LENGTHS), HORIZON)).astype(np.float32))
    return model(past_values=past, future_values=future, truncate_negative=False).loss


if __name__ == "__main__":
    run(build, loss_of)
