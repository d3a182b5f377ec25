"""Kimi-Linear (Hugging Face transformers, tiny configuration): Kimi delta attention by its torch
fallback, the chunked delta rule with a decay per channel (a cumulative log-decay, a masked
pairwise decay matrix, the intra-chunk triangular solve row by row on slices, the state carried
chunk to chunk), a short causal depthwise convolution on queries, keys and values, a forget gate
through `log(1 + exp(g))`, a sigmoid-gated output norm; beside it multi-head latent attention
without rotary positions and a routed mixture of experts with a shared expert."""

from common import causal_lm_loss, run
from transformers import KimiLinearConfig, KimiLinearForCausalLM

VOCAB = 128


def build() -> KimiLinearForCausalLM:
    config = KimiLinearConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, moe_intermediate_size=16, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8,
        v_head_dim=8, num_local_experts=4, num_experts_per_tok=2, n_shared_experts=1,
        layer_types=["linear_attention", "full_attention"], mlp_layer_types=["dense", "sparse"],
        linear_attn_config={"head_dim": 8, "num_heads": 2, "short_conv_kernel_size": 4},
        max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return KimiLinearForCausalLM(config)


loss_of = causal_lm_loss(VOCAB)

if __name__ == "__main__":
    run(build, loss_of)
