"""Jamba (Hugging Face transformers, tiny configuration): a Mamba layer (its state matrix initialised as
the log of an integer ramp) then an attention layer with 4 experts, 2 per token."""

from common import causal_lm_loss, run
from transformers import JambaConfig, JambaForCausalLM

VOCAB = 96


def build() -> JambaForCausalLM:
    config = JambaConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, num_experts=4, num_experts_per_tok=2, expert_layer_period=2, expert_layer_offset=1,
        attn_layer_period=2, attn_layer_offset=1, mamba_d_state=8, mamba_d_conv=4, mamba_expand=2,
        use_mamba_kernels=False, max_position_embeddings=32,
    )  # fmt: skip
    return JambaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
