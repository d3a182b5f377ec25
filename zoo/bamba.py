"""Bamba (Hugging Face transformers, tiny configuration): a Mamba-2 layer (the state-space duality scan
in torch ops, a gated RMSNorm) then a grouped-query attention layer with partial rotary positions."""

from common import causal_lm_loss, run
from transformers import BambaConfig, BambaForCausalLM

VOCAB = 96


def build() -> BambaForCausalLM:
    config = BambaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, attn_layer_indices=[1], mamba_n_heads=8, mamba_d_head=8, mamba_n_groups=1,
        mamba_d_state=8, mamba_d_conv=4, mamba_expand=2, mamba_chunk_size=8, max_position_embeddings=32,
    )  # fmt: skip
    return BambaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
