"""PEGASUS-X (Hugging Face transformers, tiny configuration): an encoder of block-local attention with
staggered blocks (every other layer shifted by half a block, the sequence padded for it) and learned
global tokens that attend to everything and to which every block attends, sinusoidal positions, scaled
embeddings; a BART-like decoder."""

from common import run, seq2seq_lm_loss
from transformers import PegasusXConfig, PegasusXForConditionalGeneration

VOCAB = 96


def build() -> PegasusXForConditionalGeneration:
    config = PegasusXConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
        num_global_tokens=4, block_size=4, stagger_local_blocks=True,
    )  # fmt: skip
    return PegasusXForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
