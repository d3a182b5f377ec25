"""ELECTRA (Hugging Face transformers, tiny configuration): a BERT-style encoder whose embeddings are
narrower than the model and projected up, a classification head with GELU over the first token."""

from common import run, sequence_classification_loss
from transformers import ElectraConfig, ElectraForSequenceClassification

VOCAB = 96


def build() -> ElectraForSequenceClassification:
    config = ElectraConfig(
        vocab_size=VOCAB, embedding_size=32, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=128, max_position_embeddings=32, num_labels=3,
    )  # fmt: skip
    return ElectraForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
