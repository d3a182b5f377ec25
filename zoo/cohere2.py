"""Cohere 2 (Hugging Face transformers, tiny configuration): parallel attention and feed-forward from
one LayerNorm without bias, three sliding-window layers with interleaved rotary positions for each
global layer without them, and logits scaled by a constant."""

from common import causal_lm_loss, run
from transformers import Cohere2Config, Cohere2ForCausalLM

VOCAB = 96


def build() -> Cohere2ForCausalLM:
    config = Cohere2Config(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, sliding_window=6, pad_token_id=0, bos_token_id=1,
        eos_token_id=2,
    )  # fmt: skip
    return Cohere2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
