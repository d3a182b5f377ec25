"""XGLM (Hugging Face transformers, tiny configuration): fixed sinusoidal positions offset by 2, token
embeddings scaled by sqrt(d_model), pre-norm decoder with GELU."""

from common import causal_lm_loss, run
from transformers import XGLMConfig, XGLMForCausalLM

VOCAB = 96


def build() -> XGLMForCausalLM:
    config = XGLMConfig(
        vocab_size=VOCAB, d_model=64, ffn_dim=128, num_layers=2, attention_heads=4, max_position_embeddings=32,
        bos_token_id=1, eos_token_id=2, pad_token_id=0, decoder_start_token_id=2,
    )  # fmt: skip
    return XGLMForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
