"""PatchTST (Hugging Face transformers, tiny configuration): a time series scaled by its mean and
standard deviation, cut into overlapping patches (unfold), a transformer over the patches of each
channel, a linear forecast head."""

import numpy as np
import torch
from common import run
from transformers import PatchTSTConfig, PatchTSTForPrediction

CHANNELS, CONTEXT, HORIZON = 3, 32, 8


def build() -> PatchTSTForPrediction:
    config = PatchTSTConfig(
        num_input_channels=CHANNELS, context_length=CONTEXT, prediction_length=HORIZON, patch_length=8,
        patch_stride=4, d_model=32, num_attention_heads=2, num_hidden_layers=1, ffn_dim=64, scaling="std",
        loss="mse",
    )  # fmt: skip
    return PatchTSTForPrediction(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    past = torch.from_numpy(rng.standard_normal((4, CONTEXT, CHANNELS)).astype(np.float32))
    future = torch.from_numpy(rng.standard_normal((4, HORIZON, CHANNELS)).astype(np.float32))
    return model(past_values=past, future_values=future).loss


if __name__ == "__main__":
    run(build, loss_of)
