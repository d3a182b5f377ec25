"""BART (Hugging Face transformers, tiny configuration): encoder-decoder with learned positions,
a LayerNorm on the embeddings, GELU."""

from common import run, seq2seq_lm_loss
from transformers import BartConfig, BartForConditionalGeneration

VOCAB = 96


def build() -> BartForConditionalGeneration:
    config = BartConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
    )  # fmt: skip
    return BartForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
