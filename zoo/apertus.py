"""Apertus (Hugging Face transformers, tiny configuration): a Llama-style decoder whose MLP is xIELU (a
learned activation without a gate: ``softplus`` of two trained scalars, ``alpha_p * x * x + beta * x`` for
positive inputs, ``(expm1(min(x, eps)) - x) * alpha_n + beta * x`` for the rest, chosen by ``where``), query
and key RMSNorm per head, Llama 3 rotary frequencies."""

from common import causal_lm_loss, run
from transformers import ApertusConfig, ApertusForCausalLM

VOCAB = 96


def build() -> ApertusForCausalLM:
    config = ApertusConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, pad_token_id=0,
    )  # fmt: skip
    return ApertusForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
