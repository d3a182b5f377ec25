"""Qwen2-MoE (Hugging Face transformers, tiny configuration): 4 routed experts, 2 per token, through
``torch._grouped_mm``, beside a shared expert behind a sigmoid gate; RMSNorm, SiLU, rotary positions."""

from common import causal_lm_loss, run
from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM

VOCAB = 96


def build() -> Qwen2MoeForCausalLM:
    config = Qwen2MoeConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, moe_intermediate_size=48,
        shared_expert_intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=32, num_experts=4, num_experts_per_tok=2,
    )  # fmt: skip
    return Qwen2MoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
