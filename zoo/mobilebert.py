"""MobileBERT (Hugging Face transformers, tiny configuration): bottleneck blocks, stacked feed-forward
layers, NoNorm (an elementwise scale and shift in place of layer norm), a trigram input embedding."""

from common import run, sequence_classification_loss
from transformers import MobileBertConfig, MobileBertForSequenceClassification

VOCAB = 96


def build() -> MobileBertForSequenceClassification:
    config = MobileBertConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        embedding_size=32, intra_bottleneck_size=32, true_hidden_size=32, num_feedforward_networks=2,
        max_position_embeddings=32, num_labels=3,
    )  # fmt: skip
    return MobileBertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
