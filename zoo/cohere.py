"""Cohere (Hugging Face transformers, tiny configuration): a layer norm without bias written out in
float32 (mean, variance, rsqrt), rotary positions on interleaved pairs, a parallel residual, the logits
scaled by a constant, key/value heads shared by query heads."""

from common import causal_lm_loss, run
from transformers import CohereConfig, CohereForCausalLM

VOCAB = 96


def build() -> CohereForCausalLM:
    config = CohereConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, use_qk_norm=True, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return CohereForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
