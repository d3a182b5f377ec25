"""Phi-3 (Hugging Face transformers, tiny configuration): one fused query/key/value projection and one
fused gate/up projection, sliced into their parts."""

from common import causal_lm_loss, run
from transformers import Phi3Config, Phi3ForCausalLM

VOCAB = 96


def build() -> Phi3ForCausalLM:
    config = Phi3Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, pad_token_id=0, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return Phi3ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
