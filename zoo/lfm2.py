"""LFM2 (Hugging Face transformers, tiny configuration): short gated convolutions (a projection to
three streams, a depthwise causal conv1d of kernel 3 between two elementwise gates) in most layers,
grouped-query attention with RMS-normed queries and keys in the others, a SwiGLU MLP."""

from common import causal_lm_loss, run
from transformers import Lfm2Config, Lfm2ForCausalLM

VOCAB = 96


def build() -> Lfm2ForCausalLM:
    config = Lfm2Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=32, conv_L_cache=3, block_auto_adjust_ff_dim=False,
        layer_types=["conv", "full_attention", "conv"], bos_token_id=1, eos_token_id=2, pad_token_id=0,
    )  # fmt: skip
    return Lfm2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
