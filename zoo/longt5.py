"""LongT5 (Hugging Face transformers, tiny configuration): T5 whose encoder attends with transient
global attention: local attention in blocks of its neighbours (the sequence padded to whole blocks, keys
of three blocks concatenated) plus keys that are per-block sums of the layer-normed inputs (block ids by
``cumsum``, summed by a one-hot ``einsum``), each with its own relative-position bias; gated GELU."""

from common import run, seq2seq_lm_loss
from transformers import LongT5Config, LongT5ForConditionalGeneration

VOCAB = 96


def build() -> LongT5ForConditionalGeneration:
    config = LongT5Config(
        vocab_size=VOCAB, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=1, num_heads=4,
        local_radius=3, global_block_size=4, relative_attention_num_buckets=8, relative_attention_max_distance=16,
        encoder_attention_type="transient-global", feed_forward_proj="gated-gelu", decoder_start_token_id=0,
    )  # fmt: skip
    return LongT5ForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
