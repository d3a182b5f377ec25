"""Zamba (Hugging Face transformers, tiny configuration): Mamba (v1) layers in the reference scan (the
library's own, no CUDA kernels), several heads of selective state per layer, and a shared attention
block in two of the five layers (its weights tied between them) whose input is the hidden state
concatenated with the embeddings, projected back by a per-layer linear layer."""

from common import causal_lm_loss, run
from transformers import ZambaConfig, ZambaForCausalLM

VOCAB = 96


def build() -> ZambaForCausalLM:
    config = ZambaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=5, num_attention_heads=2,
        num_key_value_heads=2, n_mamba_heads=2, mamba_d_state=8, mamba_d_conv=4, mamba_expand=2,
        attn_layer_period=2, attn_layer_offset=1, use_mamba_kernels=False, max_position_embeddings=32,
    )  # fmt: skip
    return ZambaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
