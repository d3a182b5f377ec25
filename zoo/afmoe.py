"""AFMoE (Hugging Face transformers, tiny configuration): a mixture-of-experts decoder whose attention output
is gated by ``sigmoid`` of its own projection of the input, rotary positions on the sliding-window layers
only (the global layer has none), RMSNorm before and after both attention and the MLP, muP's input scaling
by sqrt(hidden), and token-choice routing by ``sigmoid`` scores: ``topk`` of the scores plus a per-expert
bias, the chosen scores ``gather``ed and normalised by their sum plus 1e-20, scaled by the route scale;
the experts' outputs accumulated by ``index_add_`` beside an always-on shared expert."""

from common import causal_lm_loss, run
from transformers import AfmoeConfig, AfmoeForCausalLM

VOCAB = 96


def build() -> AfmoeForCausalLM:
    config = AfmoeConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, moe_intermediate_size=32, num_hidden_layers=3,
        num_dense_layers=1, num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_experts=8,
        num_experts_per_tok=2, num_shared_experts=1, route_scale=2.5, global_attn_every_n_layers=3,
        sliding_window=8, max_position_embeddings=32, mup_enabled=True,
    )  # fmt: skip
    return AfmoeForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
