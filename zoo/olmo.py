"""OLMo (Hugging Face transformers, tiny configuration): a layer norm with neither weight nor bias
(`F.layer_norm` without parameters), SwiGLU, rotary positions, query/key/value from one projection."""

from common import causal_lm_loss, run
from transformers import OlmoConfig, OlmoForCausalLM

VOCAB = 96


def build() -> OlmoForCausalLM:
    config = OlmoConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=32, bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )  # fmt: skip
    return OlmoForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
