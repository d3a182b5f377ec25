"""Llama 4 (Hugging Face transformers, tiny configuration, the text model): chunked local attention in
three layers of four and global attention without rotary positions (but with a temperature scaling
of the queries by position) in the fourth, an L2 norm of the rotated queries and keys, rotary positions
as complex products, and a mixture of experts whose router scores the chosen expert's input by
``sigmoid`` beside a shared expert."""

from common import causal_lm_loss, run
from transformers import Llama4ForCausalLM, Llama4TextConfig

VOCAB = 96


def build() -> Llama4ForCausalLM:
    config = Llama4TextConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=32, intermediate_size_mlp=64, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, num_local_experts=4, num_experts_per_tok=1,
        interleave_moe_layer_step=2, attention_chunk_size=8, max_position_embeddings=32, floor_scale=4,
        pad_token_id=0,
    )  # fmt: skip
    return Llama4ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
