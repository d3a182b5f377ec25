"""Llama at the size of SmolLM-135M (Hugging Face transformers): 30 layers of width 576, 9 query heads
of size 64 sharing 3 key/value heads, RMSNorm, SiLU, rotary positions, tied embeddings; causal language
modelling on batches of 2 x 256 tokens."""

from common import causal_lm_loss, run
from transformers import LlamaConfig, LlamaForCausalLM

VOCAB = 49152


def build() -> LlamaForCausalLM:
    config = LlamaConfig(
        vocab_size=VOCAB, hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
        num_key_value_heads=3, max_position_embeddings=2048, tie_word_embeddings=True,
    )  # fmt: skip
    return LlamaForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB, batch=2, length=256))
