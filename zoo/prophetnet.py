"""ProphetNet (Hugging Face transformers, tiny configuration): a decoder predicting 2 future tokens at
once, its n-gram self-attention (main and predict streams, bucketed relative positions from log of the
distance), and a label-smoothed loss over the n-gram streams."""

from common import run, seq2seq_lm_loss
from transformers import ProphetNetConfig, ProphetNetForConditionalGeneration

VOCAB = 96


def build() -> ProphetNetForConditionalGeneration:
    config = ProphetNetConfig(
        vocab_size=VOCAB, hidden_size=32, encoder_ffn_dim=64, num_encoder_layers=1, num_encoder_attention_heads=2,
        decoder_ffn_dim=64, num_decoder_layers=1, num_decoder_attention_heads=2, max_position_embeddings=32,
        ngram=2, num_buckets=8, relative_max_distance=16, eps=0.1,
    )  # fmt: skip
    return ProphetNetForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
