"""Gemma 3 text (Hugging Face transformers, tiny configuration): sliding-window and global layers with
separate rotary bases, RMS norms over each head's queries and keys (scaled by 1 + weight), the
embeddings scaled by the square root of the width, a tanh-approximated GELU gate."""

from common import causal_lm_loss, run
from transformers import Gemma3ForCausalLM, Gemma3TextConfig

VOCAB = 96


def build() -> Gemma3ForCausalLM:
    config = Gemma3TextConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=32, sliding_window=8,
        layer_types=["sliding_attention", "full_attention"], query_pre_attn_scalar=16,
    )  # fmt: skip
    return Gemma3ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
