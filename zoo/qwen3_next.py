"""Qwen3-Next (Hugging Face transformers, tiny configuration): gated delta-rule linear attention (the
library's chunked torch fallback: a causal short convolution with SiLU, L2-normalised queries and keys,
decays from softplus and the exponential of a learned log, cumulative log-decays per chunk of 64, a
unit lower triangular solve per chunk (``linalg_solve_triangular``), a gated RMS norm) in three layers
of four, full attention with an output gate and partial rotary positions in the fourth, a mixture of
experts with a sigmoid-gated shared expert."""

from common import causal_lm_loss, run
from transformers import Qwen3NextConfig, Qwen3NextForCausalLM

VOCAB = 96


def build() -> Qwen3NextForCausalLM:
    config = Qwen3NextConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=4, num_attention_heads=2,
        num_key_value_heads=1, head_dim=16, max_position_embeddings=32, linear_conv_kernel_dim=4,
        linear_key_head_dim=8, linear_value_head_dim=8, linear_num_key_heads=2, linear_num_value_heads=4,
        moe_intermediate_size=16, shared_expert_intermediate_size=16, num_experts=4, num_experts_per_tok=2,
        decoder_sparse_step=1,
    )  # fmt: skip
    return Qwen3NextForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
