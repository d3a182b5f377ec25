"""DBRX (Hugging Face transformers, tiny configuration): a fused query/key/value projection clamped to
[-clip_qkv, clip_qkv], LayerNorm without bias, 4 experts, 2 per token, with the router's weights
normalised by their L1 norm, and the load-balancing auxiliary loss. (Its attention reads ``rope_theta``
from ``attn_config``, which DbrxAttentionConfig does not default: given here.)"""

from common import causal_lm_loss, run
from transformers import DbrxConfig, DbrxForCausalLM

VOCAB = 96


def build() -> DbrxForCausalLM:
    config = DbrxConfig(
        d_model=64, n_heads=4, n_layers=2, max_seq_len=32, vocab_size=VOCAB,
        attn_config={"clip_qkv": 0.5, "kv_n_heads": 2, "rope_theta": 10000.0}, output_router_logits=True,
        ffn_config={"ffn_hidden_size": 48, "moe_num_experts": 4, "moe_top_k": 2, "moe_loss_weight": 0.01},
    )  # fmt: skip
    return DbrxForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
