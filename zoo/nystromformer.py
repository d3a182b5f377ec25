"""Nystromformer (Hugging Face transformers, tiny configuration): Nyström-approximated attention through
landmarks and an iterative pseudo-inverse, a depthwise convolution over the values."""

from common import run, sequence_classification_loss
from transformers import NystromformerConfig, NystromformerForSequenceClassification

VOCAB = 96


def build() -> NystromformerForSequenceClassification:
    config = NystromformerConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        segment_means_seq_len=16, num_landmarks=4, conv_kernel_size=3, max_position_embeddings=64, num_labels=3,
    )  # fmt: skip
    return NystromformerForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
