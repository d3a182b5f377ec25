"""Doge (Hugging Face transformers, tiny configuration): dynamic mask attention (a per-head bias
from `exp(A * softplus(dt_proj(values)))` added to the causal mask, the keys beyond the keep window
dropped by topk and `scatter`), and the cross-domain mixture of experts: product-key routing by two
topk over half-keys, their sums and indices combined and a second topk, expert rows fetched by
embedding and applied by batched matmul, beside a shared gated MLP; residuals scaled by learned
per-channel weights."""

from common import causal_lm_loss, run
from transformers import DogeConfig, DogeForCausalLM

VOCAB = 128


def build() -> DogeForCausalLM:
    config = DogeConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, keep_window_size=8, is_moe=True, num_experts=16,
        num_experts_per_tok=4,
    )  # fmt: skip
    return DogeForCausalLM(config)


loss_of = causal_lm_loss(VOCAB)

if __name__ == "__main__":
    run(build, loss_of)
