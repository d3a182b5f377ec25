"""PhiMoE (Hugging Face transformers, tiny configuration): a mixture of experts routed in training by
SparseMixer: each of the top 2 experts drawn by Gumbel noise (``exponential_`` then ``log``) over the
scores masked to those within a jitter of the maximum, the gate's gradient estimated by Heun's
third-order method where ``rand_like`` exceeds 0.75; grouped-query attention, layer norms with bias."""

from common import causal_lm_loss, run
from transformers import PhimoeConfig, PhimoeForCausalLM

VOCAB = 96


def build() -> PhimoeForCausalLM:
    config = PhimoeConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, num_local_experts=4, num_experts_per_tok=2,
    )  # fmt: skip
    return PhimoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
