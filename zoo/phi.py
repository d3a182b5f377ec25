"""Phi (Hugging Face transformers, tiny configuration): attention and MLP in parallel from one layer
norm, rotary positions over part of each head, a biased output head, GELU (tanh)."""

from common import causal_lm_loss, run
from transformers import PhiConfig, PhiForCausalLM

VOCAB = 96


def build() -> PhiForCausalLM:
    config = PhiConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=32, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return PhiForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
