"""DeBERTa-v2 (Hugging Face transformers, tiny configuration): disentangled attention with relative positions."""

from common import run, sequence_classification_loss
from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

VOCAB = 96


def build() -> DebertaV2ForSequenceClassification:
    config = DebertaV2Config(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64, relative_attention=True, position_buckets=8, pos_att_type=["p2c", "c2p"],
        num_labels=3,
    )  # fmt: skip
    return DebertaV2ForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
