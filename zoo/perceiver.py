"""Perceiver (Hugging Face transformers, tiny configuration): a latent array cross-attending to the
byte embeddings of the input, self-attention among the latents, a decoder query."""

from common import run, sequence_classification_loss
from transformers import PerceiverConfig, PerceiverForSequenceClassification

VOCAB = 96


def build() -> PerceiverForSequenceClassification:
    config = PerceiverConfig(
        num_latents=8, d_latents=32, d_model=16, num_blocks=1, num_self_attends_per_block=1,
        num_self_attention_heads=2, num_cross_attention_heads=1, vocab_size=VOCAB, max_position_embeddings=64,
        num_labels=3,
    )  # fmt: skip
    return PerceiverForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
