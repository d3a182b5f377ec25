"""NanoChat (Hugging Face transformers, tiny configuration): a decoder without a single weight in its norms
(RMSNorm as ``x * rsqrt(mean(x ** 2) + eps)``, before attention and the MLP, on queries and keys per head
and at the end), rotary positions turned the other way round, an MLP of squared ReLU (``relu`` then
``square``) without biases, and the logits soft-capped by ``tanh`` at 15."""

from common import causal_lm_loss, run
from transformers import NanoChatConfig, NanoChatForCausalLM

VOCAB = 96


def build() -> NanoChatForCausalLM:
    config = NanoChatConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32,
    )  # fmt: skip
    return NanoChatForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
