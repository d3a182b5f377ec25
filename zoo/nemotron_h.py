"""Nemotron-H (Hugging Face transformers, tiny configuration): Mamba-2 layers by the library's torch
fallback (a depthwise causal convolution and the chunked state-space scan) with a gated RMS norm over 2
groups, beside a grouped-query attention layer without positions, a squared-ReLU MLP and a mixture of
non-gated squared-ReLU experts routed by sigmoid scores (a correction bias, `topk` within a group, the
chosen scores gathered and renormalised, the library's grouped experts through `_grouped_mm`) with a
shared expert."""

from common import causal_lm_loss, run
from transformers import NemotronHConfig, NemotronHForCausalLM

VOCAB = 96


def build() -> NemotronHForCausalLM:
    config = NemotronHConfig(
        vocab_size=VOCAB, hidden_size=32, layers_block_type=["linear_attention", "full_attention", "mlp", "moe"],
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=32, intermediate_size=64,
        ssm_state_size=8, mamba_num_heads=8, mamba_head_dim=8, n_groups=2, conv_kernel=4, expand=2, chunk_size=8,
        n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
        moe_shared_expert_intermediate_size=32, n_group=1, topk_group=1,
    )  # fmt: skip
    return NemotronHForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
