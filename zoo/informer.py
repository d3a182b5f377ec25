"""Informer (Hugging Face transformers, tiny configuration): ProbSparse attention (keys sampled with
torch.randint in the forward pass, the queries of highest measure picked by topk), distilling
convolutions with ELU and max pooling between encoder layers, a Student-t output distribution."""

import numpy as np
import torch
from common import run
from transformers import InformerConfig, InformerForPrediction

CONTEXT, HORIZON, LAGS = 24, 4, [1, 2, 3]


def build() -> InformerForPrediction:
    config = InformerConfig(
        prediction_length=HORIZON, context_length=CONTEXT, lags_sequence=LAGS, num_time_features=1, d_model=32,
        encoder_layers=2, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
        encoder_ffn_dim=64, decoder_ffn_dim=64, attention_type="prob", sampling_factor=2, distil=True,
    )  # fmt: skip
    return InformerForPrediction(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The negative log-likelihood of a random future given a random past (batch 4), time features a ramp."""
    past_len = CONTEXT + max(LAGS)
    ramp = np.linspace(0.0, 1.0, past_len + HORIZON, dtype=np.float32)[None, :, None].repeat(4, 0)
    return model(
        past_values=torch.from_numpy(rng.standard_normal((4, past_len)).astype(np.float32)),
        past_time_features=torch.from_numpy(ramp[:, :past_len]),
        past_observed_mask=torch.ones(4, past_len),
        future_values=torch.from_numpy(rng.standard_normal((4, HORIZON)).astype(np.float32)),
        future_time_features=torch.from_numpy(ramp[:, past_len:]),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
