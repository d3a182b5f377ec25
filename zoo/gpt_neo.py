"""GPT-Neo (Hugging Face transformers, tiny configuration): alternating global and local (windowed)
causal attention, unscaled scores in float32, learned positions."""

from common import causal_lm_loss, run
from transformers import GPTNeoConfig, GPTNeoForCausalLM

VOCAB = 96


def build() -> GPTNeoForCausalLM:
    config = GPTNeoConfig(
        vocab_size=VOCAB, hidden_size=64, num_layers=2, num_heads=4, attention_types=[[["global", "local"], 1]],
        window_size=4, max_position_embeddings=32, intermediate_size=128, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return GPTNeoForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
