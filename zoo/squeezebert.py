"""SqueezeBERT (Hugging Face transformers, tiny configuration): its projections as grouped 1-D
convolutions of kernel 1 over (batch, channels, tokens)."""

from common import run, sequence_classification_loss
from transformers import SqueezeBertConfig, SqueezeBertForSequenceClassification

VOCAB = 96


def build() -> SqueezeBertForSequenceClassification:
    config = SqueezeBertConfig(
        vocab_size=VOCAB, hidden_size=32, embedding_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, q_groups=2, k_groups=2, v_groups=2, post_attention_groups=2, intermediate_groups=4,
        output_groups=4, max_position_embeddings=64, num_labels=3,
    )  # fmt: skip
    return SqueezeBertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
