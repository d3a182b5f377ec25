"""GraniteMoeHybrid (Hugging Face transformers, tiny configuration): Mamba-2 layers (the library's torch
scan) and a rotary attention layer, each followed by a mixture of 4 SwiGLU experts (`topk` of the router
logits then a softmax over the chosen 2, the library's grouped experts: tokens sorted by expert, counted
by `histc`, run through `_grouped_mm`) beside a shared SwiGLU MLP, and the muP-style multipliers: the
embeddings, every residual branch and the attention scores scaled by constants, the logits divided by one."""

from common import causal_lm_loss, run
from transformers import GraniteMoeHybridConfig, GraniteMoeHybridForCausalLM

VOCAB = 96


def build() -> GraniteMoeHybridForCausalLM:
    config = GraniteMoeHybridConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, layer_types=["mamba", "attention"],
        position_embedding_type="rope", num_local_experts=4, num_experts_per_tok=2, shared_intermediate_size=32,
        embedding_multiplier=12.0, residual_multiplier=0.22, attention_multiplier=0.125, logits_scaling=4.0,
        mamba_n_heads=8, mamba_d_head=8, mamba_n_groups=1, mamba_d_state=8, mamba_d_conv=4, mamba_expand=2,
        mamba_chunk_size=8,
    )  # fmt: skip
    return GraniteMoeHybridForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
