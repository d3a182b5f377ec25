"""ModernBERT decoder (Hugging Face transformers, tiny configuration): ModernBERT's blocks made causal:
bias-free layer norms, GeGLU feed-forward, local layers of sliding-window attention with their own rotary
base between global ones, a prediction head of dense, GELU and norm before the tied decoder."""

from common import causal_lm_loss, run
from transformers import ModernBertDecoderConfig, ModernBertDecoderForCausalLM

VOCAB = 96


def build() -> ModernBertDecoderForCausalLM:
    config = ModernBertDecoderConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=48, num_hidden_layers=3, num_attention_heads=2,
        max_position_embeddings=32, local_attention=8, pad_token_id=0, eos_token_id=2, bos_token_id=1,
        cls_token_id=1, sep_token_id=2,
    )  # fmt: skip
    return ModernBertDecoderForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
