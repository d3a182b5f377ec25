"""HuBERT (Hugging Face transformers, tiny configuration): 1-D convolutions over a raw waveform with group
norm, a weight-normalised positional convolution, a sequence classifier."""

import numpy as np
import torch
from common import run
from transformers import HubertConfig, HubertForSequenceClassification


def build() -> HubertForSequenceClassification:
    config = HubertConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16),
        conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4,
        num_labels=3, feat_extract_norm="group", mask_time_prob=0.0,
    )  # fmt: skip
    return HubertForSequenceClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of one batch: 4 random waveforms of 400 samples, one of 3 labels each."""
    waves = torch.from_numpy(rng.standard_normal((4, 400)).astype(np.float32))
    return model(input_values=waves, labels=torch.from_numpy(rng.integers(0, 3, 4))).loss


if __name__ == "__main__":
    run(build, loss_of)
