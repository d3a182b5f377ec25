"""DeepSeek-V2 (Hugging Face transformers, tiny configuration): multi-head latent attention with the
rotary part of queries and keys rotated as complex numbers (``view_as_complex``, a complex product,
``view_as_real``), 8 routed experts chosen greedily by softmax scores, and shared experts."""

from common import causal_lm_loss, run
from transformers import DeepseekV2Config, DeepseekV2ForCausalLM

VOCAB = 96


def build() -> DeepseekV2ForCausalLM:
    config = DeepseekV2Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, moe_intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, n_routed_experts=8, n_shared_experts=1, num_experts_per_tok=2,
        first_k_dense_replace=1, q_lora_rank=32, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8,
        v_head_dim=16, max_position_embeddings=32,
    )  # fmt: skip
    return DeepseekV2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
