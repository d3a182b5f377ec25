"""Wav2Vec2-BERT (Hugging Face transformers, tiny configuration): conformer blocks over log-mel
features (no convolutional feature encoder: a layer norm and a linear projection of the 160 stacked
features), self-attention with learned relative-key positions (each query's ``einsum`` with the
embeddings of its clipped distances, 8 left and 4 right), a convolution module whose depthwise
convolution is causal (padded on the left only) and layer-normed, an adapter of a strided 1-D
convolution with GLU that halves the sequence; CTC loss."""

import numpy as np
import torch
from common import run
from transformers import Wav2Vec2BertConfig, Wav2Vec2BertForCTC

VOCAB = 16


def build() -> Wav2Vec2BertForCTC:
    config = Wav2Vec2BertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        feature_projection_input_dim=160, mask_time_prob=0.0, layerdrop=0.0, ctc_loss_reduction="mean",
        pad_token_id=0, position_embeddings_type="relative_key", left_max_position_embeddings=8,
        right_max_position_embeddings=4, conv_depthwise_kernel_size=7, add_adapter=True, adapter_kernel_size=3,
        adapter_stride=2, num_adapter_layers=1,
    )  # fmt: skip
    return Wav2Vec2BertForCTC(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The CTC loss of random features (4 sequences of 40 frames of 160) against random labels of 6 tokens."""
    features = torch.from_numpy(rng.standard_normal((4, 40, 160)).astype(np.float32))
    labels = torch.from_numpy(rng.integers(1, VOCAB, (4, 6)))
    return model(input_features=features, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
