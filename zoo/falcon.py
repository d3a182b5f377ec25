"""Falcon (Hugging Face transformers, tiny configuration): parallel attention and MLP, multi-query
attention, rotary positions."""

from common import causal_lm_loss, run
from transformers import FalconConfig, FalconForCausalLM

VOCAB = 96


def build() -> FalconForCausalLM:
    return FalconForCausalLM(FalconConfig(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4))


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
