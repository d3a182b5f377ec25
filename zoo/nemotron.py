"""Nemotron (Hugging Face transformers, tiny configuration): a squared-ReLU MLP without a gate, a layer
norm scaled by 1 + weight (LayerNorm1P: the weight plus one before torch's layer_norm), half the head
rotated by rotary positions, key/value heads shared by query heads."""

from common import causal_lm_loss, run
from transformers import NemotronConfig, NemotronForCausalLM

VOCAB = 96


def build() -> NemotronForCausalLM:
    config = NemotronConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=32, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return NemotronForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
