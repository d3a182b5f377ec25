"""Mistral (Hugging Face transformers, tiny configuration): sliding-window causal attention (a window
of 8 over 16 tokens), RMSNorm, SiLU, rotary positions, 4 query heads sharing 2 key/value heads."""

from common import causal_lm_loss, run
from transformers import MistralConfig, MistralForCausalLM

VOCAB = 96


def build() -> MistralForCausalLM:
    config = MistralConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, sliding_window=8,
    )  # fmt: skip
    return MistralForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
