"""MiniMax (Hugging Face transformers, tiny configuration): lightning attention (linear attention in
blocks: per-head exponential decays, a causal intra-block product masked by the decays, a key-value
state carried across blocks) beside a softmax-attention layer, residuals weighted by alpha and beta
factors, a mixture of experts routed by top-k."""

from common import causal_lm_loss, run
from transformers import MiniMaxConfig, MiniMaxForCausalLM

VOCAB = 96


def build() -> MiniMaxForCausalLM:
    config = MiniMaxConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=32, num_local_experts=4, num_experts_per_tok=2,
        layer_types=["linear_attention", "full_attention"], block_size=8, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return MiniMaxForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
