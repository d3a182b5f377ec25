"""Mixtral (Hugging Face transformers, tiny configuration): a mixture of 4 experts, 2 per token, run as
``torch._grouped_mm`` over the rows sorted by expert; RMSNorm, SiLU, rotary positions, grouped key/value heads."""

from common import causal_lm_loss, run
from transformers import MixtralConfig, MixtralForCausalLM

VOCAB = 96


def build() -> MixtralForCausalLM:
    config = MixtralConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, num_local_experts=4, num_experts_per_tok=2,
    )  # fmt: skip
    return MixtralForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
