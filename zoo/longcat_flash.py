"""LongCat-Flash (Hugging Face transformers, tiny configuration): each layer two multi-head latent
attention sublayers (low-rank queries and keys, interleaved rotary pairs) and two dense MLPs, with a
shortcut mixture of experts read after the first and added after the second; the router's top 2 of 6
chosen over the softmax plus a correction bias and scaled, 2 of the 6 zero-computation experts that
pass their tokens through unchanged (``index_add_`` of the identity)."""

from common import causal_lm_loss, run
from transformers import LongcatFlashConfig, LongcatFlashForCausalLM

VOCAB = 96


def build() -> LongcatFlashForCausalLM:
    config = LongcatFlashConfig(
        vocab_size=VOCAB, hidden_size=32, num_layers=1, num_attention_heads=2, num_key_value_heads=2,
        max_position_embeddings=32, ffn_hidden_size=64, q_lora_rank=16, kv_lora_rank=16, qk_nope_head_dim=8,
        qk_rope_head_dim=8, head_dim=8, v_head_dim=8, moe_topk=2, n_routed_experts=4, zero_expert_num=2,
        expert_ffn_hidden_size=16, routed_scaling_factor=2.0,
    )  # fmt: skip
    return LongcatFlashForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
