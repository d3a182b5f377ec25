"""Persimmon (Hugging Face transformers, tiny configuration): a fused query-key-value projection split by
view, layer norms over each head's queries and keys, rotary positions on half of each head (the other
half passed through and concatenated), a squared-ReLU MLP without a gate, layer norms with bias."""

from common import causal_lm_loss, run
from transformers import PersimmonConfig, PersimmonForCausalLM

VOCAB = 96


def build() -> PersimmonForCausalLM:
    config = PersimmonConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=32, qk_layernorm=True, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return PersimmonForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
