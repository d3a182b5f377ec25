"""TimesFM (Hugging Face transformers, tiny configuration): a decoder-only forecaster over patches of a series,
each series of its own length left-padded and normalised by the mean and standard deviation of its first
patch with at least three observed values (`argmax` picks it, `sqrt` of a clamped masked variance), a
moving average over a window (`unfold` then `mean`) splitting each series into trend and residual, residual
MLP blocks in and out, learned per-dimension query scales through `softplus`, the horizon decoded patch by
patch, a loss of `mse_loss` and the quantile (pinball) loss by `max`."""

import numpy as np
import torch
from common import run
from transformers import TimesFmConfig, TimesFmModelForPrediction

PATCH, CONTEXT, HORIZON, LENGTHS = 8, 32, 8, (32, 27, 19, 32)


def build() -> TimesFmModelForPrediction:
    config = TimesFmConfig(
        patch_length=PATCH, context_length=CONTEXT, horizon_length=HORIZON, num_hidden_layers=2, hidden_size=32,
        intermediate_size=32, head_dim=16, num_attention_heads=2, quantiles=[0.1, 0.5, 0.9],
    )  # fmt: skip
    return TimesFmModelForPrediction(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: 4 random series of 32, 27, 19 and 32 values, a future of 8 each, the
    frequencies 0, 1, 2, 0, the moving average over 3 values."""
    past = [torch.from_numpy(rng.standard_normal(n).astype(np.float32)) for n in LENGTHS]
    future = torch.from_numpy(rng.standard_normal((len(LENGTHS), HORIZON)).astype(np.float32))
    return model(past_values=past, freq=[0, 1, 2, 0], window_size=3, future_values=future).loss


if __name__ == "__main__":
    run(build, loss_of)
