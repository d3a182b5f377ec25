"""GPT-NeoX (Hugging Face transformers, tiny configuration): rotary embeddings on part of each head, a
parallel residual."""

from common import causal_lm_loss, run
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

VOCAB = 96


def build() -> GPTNeoXForCausalLM:
    config = GPTNeoXConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64, rotary_pct=0.25,
    )  # fmt: skip
    return GPTNeoXForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
