"""Longformer (Hugging Face transformers, tiny configuration): sliding-window attention over
overlapping chunks of the sequence (strided views, padding, diagonals), and global attention on the
first token."""

from common import run, sequence_classification_loss
from transformers import LongformerConfig, LongformerForSequenceClassification

VOCAB = 96


def build() -> LongformerForSequenceClassification:
    config = LongformerConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        attention_window=[4], max_position_embeddings=64, num_labels=3, pad_token_id=1,
    )  # fmt: skip
    return LongformerForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
