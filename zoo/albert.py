"""ALBERT (Hugging Face transformers, tiny configuration): factorised embeddings, one layer's weights
shared by every layer, a tanh-approximated GELU."""

from common import run, sequence_classification_loss
from transformers import AlbertConfig, AlbertForSequenceClassification

VOCAB = 96


def build() -> AlbertForSequenceClassification:
    config = AlbertConfig(
        vocab_size=VOCAB, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=32, num_labels=3,
    )  # fmt: skip
    return AlbertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
