"""DeepSeek-V3.2 (Hugging Face transformers, tiny configuration): DeepSeek sparse attention. Beside
multi-head latent attention (low-rank queries, a compressed key-value latent and a decoupled rotary part
rotated by interleaved pairs) each layer runs a lightning indexer without gradients: its own queries from the
query latent and one layer-normed key per token, both rotated by half-split rotary positions, scores
``relu``(q . k) in float32 weighted per head by a projection of the input and summed over heads,
``masked_fill``ed with -inf past the causal mask, the top 6 keys of 16 per query chosen by ``topk`` (the early
queries' ties among -inf included); the chosen keys ``scatter``ed as False into a boolean mask of ``new_ones``,
the boolean attention mask ``and``ed with its complement, the keys assembled by ``copy_`` into slices of
``new_empty``. A dense first layer, then 8 routed experts in 2 groups chosen by sigmoid scores plus a correction
bias, and a shared expert."""

from common import causal_lm_loss, run
from transformers import DeepseekV32Config, DeepseekV32ForCausalLM

VOCAB = 96


def build() -> DeepseekV32ForCausalLM:
    config = DeepseekV32Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, moe_intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, n_routed_experts=8, n_shared_experts=1, num_experts_per_tok=2,
        n_group=2, topk_group=1, first_k_dense_replace=1, q_lora_rank=32, kv_lora_rank=16, qk_rope_head_dim=8,
        qk_nope_head_dim=8, v_head_dim=16, max_position_embeddings=32, index_topk=6, index_head_dim=16,
        index_n_heads=4,
    )  # fmt: skip
    return DeepseekV32ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
