"""Llama (Hugging Face transformers, tiny configuration): RMSNorm, SiLU, rotary positions, grouped
key/value heads (4 query heads of size 16 share 2 key/value heads)."""

from common import causal_lm_loss, run
from transformers import LlamaConfig, LlamaForCausalLM

VOCAB = 96


def build() -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32,
    )  # fmt: skip
    return LlamaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
