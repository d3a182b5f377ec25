"""Gemma 2 (Hugging Face transformers, tiny configuration): attention logits soft-capped with tanh,
alternating sliding-window layers, RMSNorm scaled by 1 + weight, a tanh-approximated GELU."""

from common import causal_lm_loss, run
from transformers import Gemma2Config, Gemma2ForCausalLM

VOCAB = 96


def build() -> Gemma2ForCausalLM:
    config = Gemma2Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=32, sliding_window=8,
    )  # fmt: skip
    return Gemma2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
