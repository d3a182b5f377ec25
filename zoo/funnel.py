"""Funnel Transformer (Hugging Face transformers, tiny configuration): the sequence pooled between blocks,
relative sinusoidal positions made in the forward pass, a decoder upsampling it back."""

from common import run, sequence_classification_loss
from transformers import FunnelConfig, FunnelForSequenceClassification

VOCAB = 96


def build() -> FunnelForSequenceClassification:
    config = FunnelConfig(
        vocab_size=VOCAB, block_sizes=[1, 1], block_repeats=None, num_decoder_layers=1, d_model=32, n_head=2,
        d_head=16, d_inner=64, max_position_embeddings=64, num_labels=3,
    )  # fmt: skip
    return FunnelForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
