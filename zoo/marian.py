"""Marian (Hugging Face transformers, tiny configuration): an encoder-decoder with fixed sinusoidal
positions (the sines in the first half of each position's vector, the cosines in the second), no layer
norm on the embeddings, SiLU feed-forward layers and the output projection tied to the embeddings."""

from common import run, seq2seq_lm_loss
from transformers import MarianConfig, MarianMTModel

VOCAB = 96


def build() -> MarianMTModel:
    config = MarianConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
        activation_function="swish", pad_token_id=0, decoder_start_token_id=0, scale_embedding=True,
    )  # fmt: skip
    return MarianMTModel(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
