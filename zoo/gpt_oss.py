"""GPT-OSS (Hugging Face transformers, tiny configuration): attention sinks, a sliding-window layer and a
full one, 4 experts (2 per token) with a clamped SwiGLU and biases."""

from common import causal_lm_loss, run
from transformers import GptOssConfig, GptOssForCausalLM

VOCAB = 96


def build() -> GptOssForCausalLM:
    config = GptOssConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, num_local_experts=4, num_experts_per_tok=2, max_position_embeddings=32,
        sliding_window=8, layer_types=["sliding_attention", "full_attention"],
    )  # fmt: skip
    return GptOssForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
