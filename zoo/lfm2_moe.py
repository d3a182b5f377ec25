"""LFM2-MoE (Hugging Face transformers, tiny configuration): LFM2's short gated convolutions and
grouped-query attention, dense SwiGLU in the first layer and a mixture of experts after it, routed by
``sigmoid`` scores plus a learned expert bias for the choice (top 2 of 4), the chosen scores normalised."""

from common import causal_lm_loss, run
from transformers import Lfm2MoeConfig, Lfm2MoeForCausalLM

VOCAB = 96


def build() -> Lfm2MoeForCausalLM:
    config = Lfm2MoeConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, moe_intermediate_size=16, num_hidden_layers=3,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32, num_dense_layers=1,
        num_experts=4, num_experts_per_tok=2, layer_types=["conv", "full_attention", "conv"],
    )  # fmt: skip
    return Lfm2MoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
