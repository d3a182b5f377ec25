"""DistilBERT (Hugging Face transformers, tiny configuration): BERT without token types or pooler, as a
sequence classifier; GELU."""

from common import run, sequence_classification_loss
from transformers import DistilBertConfig, DistilBertForSequenceClassification

VOCAB = 96


def build() -> DistilBertForSequenceClassification:
    config = DistilBertConfig(
        vocab_size=VOCAB, dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=32, num_labels=3
    )
    return DistilBertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
