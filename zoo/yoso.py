"""YOSO (Hugging Face transformers, tiny configuration), in its expectation form (the LSH form needs a
compiled CUDA extension): queries and keys L2-normalised, the attention weights the collision
probability of random hyperplane hashing, ``(1 - acos(q . k) / pi) ** hash_code_len``, unnormalised
and multiplied by the key mask, and a hand-written backward that takes the gradient of the collision
probability as ``hash_code_len / 2`` times the key (or query) in place of acos's derivative."""

from common import causal_lm_loss, run
from transformers import YosoConfig, YosoForMaskedLM

VOCAB = 96


def build() -> YosoForMaskedLM:
    config = YosoConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64, use_expectation=True, hash_code_len=9, conv_window=None,
    )  # fmt: skip
    return YosoForMaskedLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
