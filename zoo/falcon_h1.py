"""Falcon-H1 (Hugging Face transformers, tiny configuration): attention and a Mamba-2 mixer side by
side in every layer (their outputs summed), each scaled by its own multipliers (embedding, attention
in and out, key, SSM in and out, the gated MLP's two, the LM head), the SSM's gated RMSNorm."""

from common import causal_lm_loss, run
from transformers import FalconH1Config, FalconH1ForCausalLM

VOCAB = 96


def build() -> FalconH1ForCausalLM:
    config = FalconH1Config(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, mamba_d_ssm=32, mamba_n_heads=4, mamba_d_head=8,
        mamba_n_groups=1, mamba_d_state=8, mamba_d_conv=4, mamba_expand=1, mamba_chunk_size=8,
        mamba_rms_norm=True, embedding_multiplier=2.0, lm_head_multiplier=0.5, key_multiplier=0.7,
        attention_in_multiplier=0.9, attention_out_multiplier=1.1, ssm_in_multiplier=1.3, ssm_out_multiplier=0.8,
        mlp_multipliers=[1.2, 0.6], ssm_multipliers=[1.0, 0.9, 1.1, 0.8, 1.2], pad_token_id=0,
    )  # fmt: skip
    return FalconH1ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
