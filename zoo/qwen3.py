"""Qwen3 (Hugging Face transformers, tiny configuration): RMSNorm on each head's queries and keys, grouped
key/value heads, SiLU, rotary positions."""

from common import causal_lm_loss, run
from transformers import Qwen3Config, Qwen3ForCausalLM

VOCAB = 96


def build() -> Qwen3ForCausalLM:
    config = Qwen3Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=32,
    )  # fmt: skip
    return Qwen3ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
