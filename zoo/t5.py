"""T5 (Hugging Face transformers, tiny configuration): encoder and decoder, relative position bias
added to the attention scores (SDPA's math path with a float mask), T5's RMS LayerNorm, ReLU."""

from common import run, seq2seq_lm_loss
from transformers import T5Config, T5ForConditionalGeneration

VOCAB = 96


def build() -> T5ForConditionalGeneration:
    config = T5Config(
        vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, decoder_start_token_id=0,
        pad_token_id=0,
    )  # fmt: skip
    return T5ForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
