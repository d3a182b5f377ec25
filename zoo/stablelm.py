"""StableLM (Hugging Face transformers, tiny configuration): rotary positions on a quarter of each head,
a layer norm per head on queries and keys (one nn.LayerNorm for each head), a parallel residual."""

from common import causal_lm_loss, run
from transformers import StableLmConfig, StableLmForCausalLM

VOCAB = 96


def build() -> StableLmForCausalLM:
    config = StableLmConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=32, qk_layernorm=True, use_parallel_residual=True,
        use_qkv_bias=True,
    )  # fmt: skip
    return StableLmForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
